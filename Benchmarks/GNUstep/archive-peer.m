/* archive-peer: GNUstep's NSKeyedArchiver and NSKeyedUnarchiver on archive-bench's model graph, as the
 * archive/unarchive peer of KeyedArchive (issue #18). Built by build.sh beside it; archive-bench runs it
 * as a child process for each size when the binary exists.
 *
 *     archive-peer --count N [--runs R] [--warmup W] [--minimum-seconds S] [--input PATH]
 *                  [--format xml|binary] [--write PATH]
 *
 * The graph is the one of Sources/ArchiveBench/ArchiverWorkload.swift (PersonData, BenchPerson and
 * FoundationPerson), value for value: N people, each with index, name, age, score, birthday (NSDate),
 * tags tag0..tag2 (three keyed strings), a 64-byte avatar (NSData) and friend0..friend2, three people in
 * the next of 20 layers (nil, encoded as such, in the last layer). The root is an NSArray of the people.
 * The people are instances of a subclass of Person registered at run time as "ArchiveBench.Person"
 * (BenchPerson's archived class name), so that each side reads the other's archives. (Not through
 * +setClassName:forClass:: GNUstep then writes the class's $classes as an empty array, since it looks the
 * hierarchy up by the new name, and KeyedArchive's unarchiver rejects an empty $classes.)
 *
 * What is timed:
 * - archive: NSKeyedArchiver with XML output (setOutputFormat: NSPropertyListXMLFormat_v1_0; the label and
 *   key say so). GNUstep's binary property-list writer (GSBinaryPLGenerator, which NSKeyedArchiver's
 *   default binary output goes through) is quadratic in the objects: it looks every object up in a table
 *   compared with -isEqual:, and GNUstep's NSDictionary -hash is its count, so the archive's 13-key
 *   dictionaries all collide, and it takes the next object from the front of an NSMutableArray. Measured
 *   here: 2.08 s for 500 models, 32.3 s for 2,000 (15.6x for 4x models); 20,000 would take about an hour.
 *   `--format binary` times that writer instead (+archivedDataWithRootObject:), to see it for yourself.
 * - unarchive: +[NSKeyedUnarchiver unarchiveObjectWithData:] on the archive GNUstep wrote (XML). GNUstep's
 *   binary property-list reader takes UIDs of 1 or 2 bytes only ("Unknown control byte = 130" for a 3-byte
 *   UID), so it cannot read a binary keyed archive of more than 65,536 objects, whoever wrote it (ours of
 *   20,000 models has 140,000): its unarchiver has to read XML at these sizes.
 * - plist read: +[NSPropertyListSerialization propertyListFromData:mutabilityOption:format:errorDescription:]
 *   with NSPropertyListImmutable on the same bytes the unarchiver reads: exactly the first step of GNUstep's
 *   -[NSKeyedUnarchiver initForReadingWithData:], which parses the whole property list into a tree of
 *   objects (NSDictionary/NSArray/NSString/NSNumber/NSData/NSDate) before any object is decoded; decoding
 *   then walks that tree. So `gnustep-unarchive / gnustep-plist-read` is GNUstep's own unarchive/read ratio
 *   on the same bytes (archive-bench reports it beside ours).
 * Before timing, untimed: GNUstep's archive is unarchived and compared with the original graph, every field
 * of every person and every friend's identity (see differs() for what XML keeps); a difference is an error.
 * With --input, a binary archive of the same graph (KeyedArchive's archive-N.bplist, up to about 9,000
 * models for the reason above) is compared the same way, exactly.
 * Timing, as archive-bench's own children: CPU time of this process (CLOCK_PROCESS_CPUTIME_ID), W untimed
 * runs, then at least R timed runs (more until S seconds of timed runs, at most 60); the median is printed
 * as `@time archiver.N.gnustep-archive SECONDS`, `@time archiver.N.gnustep-unarchive SECONDS` and
 * `@time archiver.N.gnustep-plist-read SECONDS` (with
 * `-binary` after them with --format binary), the archive's size as `@size archiver.N.gnustep-archive BYTES`.
 * Each run's result (the archive's bytes, the decoded graph) and every object the run autoreleased are
 * freed after the clock stops (the run's autorelease pool is drained outside the clock), like
 * archive-bench's `keep`. glibc is told to keep freed memory in the process, as archive-bench's children
 * do (keepFreedMemory in Child.swift). Manual reference counting (GCC's Objective-C has no ARC).
 */
#import <Foundation/Foundation.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { layers = 20, avatarBytes = 64, maximumRuns = 60 };

/* ArchiverWorkload.swift's model: see the file's comment. */
@interface Person : NSObject <NSCoding>
{
@public
  NSInteger index;
  NSString *name;
  NSInteger age;
  double score;
  NSDate *birthday;
  NSArray *tags;
  NSData *avatar;
  NSMutableArray *friends;
}
- (id) initWithIndex: (NSInteger)i;
@end

/* PersonData.friends(i, count:): three people in the next layer, none in the last. */
static NSInteger
friendsOf(NSInteger i, NSInteger count, NSInteger out[3])
{
  NSInteger layerSize = count / layers > 1 ? count / layers : 1;
  NSInteger layer = i / layerSize;
  NSInteger next = (layer + 1) * layerSize;
  NSInteger span;
  int j;

  if (layer + 1 >= layers || next >= count)
    return 0;
  span = layerSize < count - next ? layerSize : count - next;
  for (j = 1; j <= 3; j++)
    out[j - 1] = next + (i * 31 + j * 977) % span;
  return 3;
}

@implementation Person
- (id) initWithIndex: (NSInteger)i
{
  unsigned char bytes[avatarBytes];
  int k;

  if ((self = [super init]) == nil)
    return nil;
  index = i;
  name = [[NSString alloc] initWithFormat: @"Person %ld of the benchmark", (long)i];
  age = 18 + i % 70;
  score = (double)(i % 1000) / 7;
  birthday = [[NSDate alloc] initWithTimeIntervalSinceReferenceDate: (double)i * 86400.5];
  tags = [[NSArray alloc] initWithObjects:
    [NSString stringWithFormat: @"tag%ld", (long)(i % 13)],
    [NSString stringWithFormat: @"group%ld", (long)(i % 101)],
    [NSString stringWithFormat: @"t%ld", (long)i], nil];
  for (k = 0; k < avatarBytes; k++)
    bytes[k] = (unsigned char)(k * 7 + i);
  avatar = [[NSData alloc] initWithBytes: bytes length: avatarBytes];
  friends = [[NSMutableArray alloc] initWithCapacity: 3];
  return self;
}

- (void) dealloc
{
  [name release];
  [birthday release];
  [tags release];
  [avatar release];
  [friends release];
  [super dealloc];
}

- (void) encodeWithCoder: (NSCoder*)coder
{
  static NSString *tagKeys[3] = { @"tag0", @"tag1", @"tag2" };
  static NSString *friendKeys[3] = { @"friend0", @"friend1", @"friend2" };
  NSUInteger n = [friends count];
  NSUInteger k;

  [coder encodeInteger: index forKey: @"index"];
  [coder encodeObject: name forKey: @"name"];
  [coder encodeInteger: age forKey: @"age"];
  [coder encodeDouble: score forKey: @"score"];
  [coder encodeObject: birthday forKey: @"birthday"];
  for (k = 0; k < [tags count] && k < 3; k++)
    [coder encodeObject: [tags objectAtIndex: k] forKey: tagKeys[k]];
  [coder encodeObject: avatar forKey: @"avatar"];
  for (k = 0; k < 3; k++)
    [coder encodeObject: k < n ? [friends objectAtIndex: k] : nil forKey: friendKeys[k]];
}

- (id) initWithCoder: (NSCoder*)coder
{
  NSString *tag0, *tag1, *tag2;
  int k;

  if ((self = [super init]) == nil)
    return nil;
  index = [coder decodeIntegerForKey: @"index"];
  name = [[coder decodeObjectForKey: @"name"] retain];
  age = [coder decodeIntegerForKey: @"age"];
  score = [coder decodeDoubleForKey: @"score"];
  birthday = [[coder decodeObjectForKey: @"birthday"] retain];
  tag0 = [coder decodeObjectForKey: @"tag0"];
  tag1 = [coder decodeObjectForKey: @"tag1"];
  tag2 = [coder decodeObjectForKey: @"tag2"];
  tags = [[NSArray alloc] initWithObjects: tag0, tag1, tag2, nil];
  avatar = [[coder decodeObjectForKey: @"avatar"] retain];
  friends = [[NSMutableArray alloc] initWithCapacity: 3];
  for (k = 0; k < 3; k++)
    {
      NSString *key = [NSString stringWithFormat: @"friend%d", k];
      id friend = [coder decodeObjectForKey: key];
      if (friend != nil)
        [friends addObject: friend];
    }
  if (name == nil || birthday == nil || avatar == nil || [tags count] != 3)
    {
      [self release];
      return nil;
    }
  return self;
}
@end

/* The class of the graph's people: Person, under BenchPerson's archived class name. */
static Class personClass;

/* PersonData's graph of `count` people (retained; the caller releases it). */
static NSArray *
makeGraph(NSInteger count)
{
  NSMutableArray *people = [[NSMutableArray alloc] initWithCapacity: count];
  NSInteger i, f[3];

  for (i = 0; i < count; i++)
    {
      Person *p = [[personClass alloc] initWithIndex: i];
      [people addObject: p];
      [p release];
    }
  for (i = 0; i < count; i++)
    {
      Person *p = [people objectAtIndex: i];
      NSInteger n = friendsOf(i, count, f), k;
      for (k = 0; k < n; k++)
        [p->friends addObject: [people objectAtIndex: f[k]]];
    }
  return people;
}

/* Where `decoded` differs from the graph of `count` people (every field of every person and every friend's
 * identity), written into `why`; NO when it is the same graph. With `xml`, what an XML property list cannot
 * hold exactly may differ by that much: GNUstep writes a real with 16 significant digits, a date to the
 * second (the format's), so a score may differ by 1e-13 of itself and a birthday by less than a second. */
static BOOL
differs(NSArray *decoded, NSArray *original, NSInteger count, BOOL xml, char *why, size_t size)
{
  NSInteger i, k;

  if (![decoded isKindOfClass: [NSArray class]] || (NSInteger)[decoded count] != count)
    {
      snprintf(why, size, "the root is not an array of %ld people", (long)count);
      return YES;
    }
  for (i = 0; i < count; i++)
    {
      Person *a = [decoded objectAtIndex: i], *b = [original objectAtIndex: i];
      const char *field = NULL;

      if ([a class] != personClass) field = "class";
      else if (a->index != b->index) field = "index";
      else if (a->age != b->age) field = "age";
      else if (xml ? fabs(a->score - b->score) > 1e-13 * fabs(b->score) : a->score != b->score) field = "score";
      else if (![a->name isEqualToString: b->name]) field = "name";
      else if (xml ? fabs([a->birthday timeIntervalSinceDate: b->birthday]) >= 1 : ![a->birthday isEqualToDate: b->birthday])
        field = "birthday";
      else if (![a->tags isEqualToArray: b->tags]) field = "tags";
      else if (![a->avatar isEqualToData: b->avatar]) field = "avatar";
      else if ([a->friends count] != [b->friends count]) field = "friends' count";
      else
        for (k = 0; k < (NSInteger)[a->friends count]; k++)
          {
            Person *fa = [a->friends objectAtIndex: k], *fb = [b->friends objectAtIndex: k];
            if (fa != [decoded objectAtIndex: fb->index])
              field = "a friend's identity";
          }
      if (field != NULL)
        {
          snprintf(why, size, "person %ld differs in %s", (long)i, field);
          return YES;
        }
    }
  return NO;
}

static double
cpuSeconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double
wallSeconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int
compareDoubles(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double
median(double *samples, int n)
{
  qsort(samples, n, sizeof(double), compareDoubles);
  return n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

/* What a run does; returns a count derived from its result. */
typedef NSUInteger (*RunFunction)(id input);

/* GNUstep's archive of `people` with XML output (autoreleased). */
static NSData *
archiveXML(id people)
{
  NSMutableData *data = [NSMutableData dataWithCapacity: 10240];
  NSKeyedArchiver *archiver = [[NSKeyedArchiver alloc] initForWritingWithMutableData: data];

  [archiver setOutputFormat: NSPropertyListXMLFormat_v1_0];
  [archiver encodeObject: people forKey: @"root"];
  [archiver finishEncoding];
  [archiver release];
  return data;
}

static NSUInteger
archiveRun(id people)
{
  return [archiveXML(people) length];
}

static NSUInteger
archiveBinaryRun(id people)
{
  return [[NSKeyedArchiver archivedDataWithRootObject: people] length];
}

static NSUInteger
unarchiveRun(id data)
{
  return [[NSKeyedUnarchiver unarchiveObjectWithData: data] count];
}

/* The property-list step of -[NSKeyedUnarchiver initForReadingWithData:] alone: the same call, the same option. */
static NSUInteger
plistReadRun(id data)
{
  NSPropertyListFormat format;
  NSString *error = nil;
  id plist = [NSPropertyListSerialization propertyListFromData: data
                                               mutabilityOption: NSPropertyListImmutable
                                                         format: &format
                                               errorDescription: &error];
  return [[plist objectForKey: @"$objects"] count];
}

static NSUInteger sink;

/* One run in an autorelease pool drained after the clock stops; returns its CPU seconds. */
static double
timedRun(RunFunction run, id input, double *wall)
{
  NSAutoreleasePool *pool = [NSAutoreleasePool new];
  double w = wallSeconds(), start = cpuSeconds(), seconds;

  sink += run(input);
  seconds = cpuSeconds() - start;
  if (wall != NULL)
    *wall = wallSeconds() - w;
  [pool drain];
  return seconds;
}

/* Warm-ups, then the timed runs; prints the human line and the @time line. */
static void
measure(const char *label, const char *key, NSInteger count, RunFunction run, id input,
  int runs, int warmups, double minimumSeconds)
{
  double cpus[maximumRuns], walls[maximumRuns], total = 0;
  int n = 0, k;
  double cpu, wall;

  for (k = 0; k < warmups; k++)
    timedRun(run, input, NULL);
  while (n < maximumRuns && (n < runs || total < minimumSeconds))
    {
      cpus[n] = timedRun(run, input, &walls[n]);
      total += cpus[n];
      n++;
    }
  cpu = median(cpus, n);
  wall = median(walls, n);
  printf("    %-50s cpu %8.2f ms  wall %8.2f ms  (%d runs after %d warm-ups)\n", label, cpu * 1000, wall * 1000, n, warmups);
  printf("@time archiver.%ld.%s %.9g\n", (long)count, key, cpu);
  fflush(stdout);
}

static void
usage(const char *message)
{
  fprintf(stderr, "Error: %s\nUsage: archive-peer --count N [--runs R] [--warmup W] [--minimum-seconds S] [--input PATH] "
    "[--format xml|binary] [--write PATH]\n", message);
  exit(64);
}

int
main(int argc, char **argv)
{
  NSAutoreleasePool *pool = [NSAutoreleasePool new];
  NSInteger count = 0;
  int runs = 5, warmups = 3, i;
  double minimumSeconds = 0;
  const char *writePath = NULL, *inputPath = NULL;
  BOOL binary = NO;
  char why[200];
  const char *tunables = getenv("GLIBC_TUNABLES");
  NSArray *people;
  NSData *data, *input = nil;

  for (i = 1; i < argc; i++)
    {
      const char *value = i + 1 < argc ? argv[i + 1] : NULL;
      if (value == NULL)
        usage("every option needs a value");
      if (strcmp(argv[i], "--count") == 0) count = atol(value);
      else if (strcmp(argv[i], "--runs") == 0) runs = atoi(value);
      else if (strcmp(argv[i], "--warmup") == 0) warmups = atoi(value);
      else if (strcmp(argv[i], "--minimum-seconds") == 0) minimumSeconds = atof(value);
      else if (strcmp(argv[i], "--write") == 0) writePath = value;
      else if (strcmp(argv[i], "--input") == 0) inputPath = value;
      else if (strcmp(argv[i], "--format") == 0 && strcmp(value, "xml") == 0) binary = NO;
      else if (strcmp(argv[i], "--format") == 0 && strcmp(value, "binary") == 0) binary = YES;
      else usage("unknown option");
      i++;
    }
  if (count < 1 || runs < 1 || runs > maximumRuns || warmups < 0)
    usage("--count needs an integer >= 1, --runs 1-60, --warmup >= 0");

  /* Child.swift's keepFreedMemory: every block from the heap, reused after free; the heap's top kept
   * (archive-bench sets a larger trim threshold through GLIBC_TUNABLES, which mallopt would lower). */
  mallopt(M_MMAP_MAX, 0);
  if (tunables == NULL || strstr(tunables, "trim_threshold") == NULL)
    mallopt(M_TRIM_THRESHOLD, 0x7fffffff);

  personClass = objc_allocateClassPair([Person class], "ArchiveBench.Person", 0);
  objc_registerClassPair(personClass);

  people = makeGraph(count);
  data = [(binary ? [NSKeyedArchiver archivedDataWithRootObject: people] : archiveXML(people)) retain];
  if (differs([NSKeyedUnarchiver unarchiveObjectWithData: data], people, count, !binary, why, sizeof why))
    {
      fprintf(stderr, "Error: GNUstep's graph unarchived from its own archive differs from the original: %s\n", why);
      return 1;
    }
  if (writePath != NULL && ![data writeToFile: [NSString stringWithUTF8String: writePath] atomically: NO])
    {
      fprintf(stderr, "Error: cannot write %s\n", writePath);
      return 1;
    }
  if (inputPath != NULL)
    {
      input = [[NSData alloc] initWithContentsOfFile: [NSString stringWithUTF8String: inputPath]];
      if (input == nil)
        {
          fprintf(stderr, "Error: cannot read %s\n", inputPath);
          return 1;
        }
      if (differs([NSKeyedUnarchiver unarchiveObjectWithData: input], people, count, NO, why, sizeof why))
        {
          fprintf(stderr, "Error: GNUstep's graph unarchived from %s differs from the original: %s\n", inputPath, why);
          return 1;
        }
    }
  [pool drain];
  pool = [NSAutoreleasePool new];

  printf("== gnustep: %ld linked model objects (3 tags, 3 references each) through GNUstep NSKeyedArchiver/NSKeyedUnarchiver\n", (long)count);
  printf("(CPU time of this process and wall-clock time; medians of at least %d runs after %d warm-ups; "
    "results freed after the clock stops)\n", runs, warmups);
  printf("  archive size: GNUstep %lu bytes (%s)\n", (unsigned long)[data length], binary ? "binary" : "XML");
  printf("@size archiver.%ld.gnustep-archive%s %lu\n", (long)count, binary ? "-binary" : "", (unsigned long)[data length]);
  printf("  archive %ld objects to bytes\n", (long)count);
  if (binary)
    measure("GNUstep NSKeyedArchiver, binary output", "gnustep-archive-binary", count, archiveBinaryRun, people,
      runs, warmups, minimumSeconds);
  else
    measure("GNUstep NSKeyedArchiver, XML output", "gnustep-archive", count, archiveRun, people,
      runs, warmups, minimumSeconds);
  printf("  unarchive %ld objects from bytes\n", (long)count);
  measure(binary ? "GNUstep NSKeyedUnarchiver, binary input" : "GNUstep NSKeyedUnarchiver, XML input",
    binary ? "gnustep-unarchive-binary" : "gnustep-unarchive", count, unarchiveRun, data, runs, warmups, minimumSeconds);
  if (plistReadRun(data) <= (NSUInteger)count)
    {
      fprintf(stderr, "Error: GNUstep's NSPropertyListSerialization does not read its own archive's $objects\n");
      return 1;
    }
  measure(binary ? "GNUstep NSPropertyListSerialization, binary input" : "GNUstep NSPropertyListSerialization, XML input",
    binary ? "gnustep-plist-read-binary" : "gnustep-plist-read", count, plistReadRun, data, runs, warmups, minimumSeconds);
  [input release];
  [data release];
  [people release];
  [pool drain];
  return sink == 0;
}
