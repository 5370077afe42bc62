/*
 * oracle.m: GNUstep's NSKeyedArchiver / NSKeyedUnarchiver as an interop oracle for KeyedArchive's tests.
 *
 * GNUstep Base is an Objective-C Foundation written independently of Apple's and of this package, so an
 * archive that it reads (or writes) is evidence from outside our own code. Five modes:
 *
 *   oracle decode FILE            Unarchives the root object of FILE (binary or XML) with NSKeyedUnarchiver
 *                                 and prints one canonical line describing it (format below). An exception
 *                                 prints "oracle: NAME: REASON" on stderr and exits 1.
 *   oracle encode NAME FILE [xml] Archives the sample value NAME (see sample() below; the Swift tests use the
 *                                 same names) with NSKeyedArchiver into FILE, binary unless "xml" is given.
 *                                 An unknown NAME exits 2.
 *   oracle encode-top FILE        Archives a record's system fields straight into the archiver (booleans,
 *                                 integers, a real and bytes inline in $top; a string, a date and a
 *                                 KATestModel as UIDs), the shape of CloudKit's encodeSystemFieldsWithCoder:.
 *   oracle batch DIR COUNT        For each N in 0 ..< COUNT: unarchives DIR/N.archive as `decode` does and
 *                                 prints "N " and its description on one line (or "N error " and GNUstep's
 *                                 exception), then archives the decoded root twice, [root, root] (one object
 *                                 referenced twice), into DIR/N.gnustep (binary). One process for many
 *                                 archives: the randomized differential test's GNUstep side.
 *   oracle decode-top FILE        Reads encode-top's system fields back from FILE's $top with the typed calls
 *                                 (decodeBoolForKey:, decodeInt64ForKey:...; see decodeTop() below) and prints
 *                                 one "key=value" line per key.
 *
 * Canonical description (deterministic, JSON-like; every value is a one-key object naming its class):
 *   {"NSNumber":{"type":"i","value":42}}  objCType as GNUstep reports it; reals printed with %.17g
 *   {"NSString":"abc"}  {"NSData":"00ff"}  {"NSDate":123.5} (seconds since 2001)  {"NSNull":null}
 *   {"NSUUID":"01020304-..."}  {"NSURL":{"relative":"a","base":{"NSURL":...} or null,"absolute":"..."}}
 *   {"NSArray":[...]}  {"NSOrderedSet":[...]}  {"NSSet":[...]} (sorted bytewise by element description)
 *   {"NSDictionary":[[key,value],...]} (sorted by key description)  {"NSCountedSet":[[element,count],...]}
 *   {"NSValue":{"type":"...","range":[loc,len]}} (also "point":[x,y], "size":[w,h], "rect":[x,y,w,h])
 *   {"NSIndexSet":[[loc,len],...]}  {"NSIndexPath":[4,8,300]}  {"NSTimeZone":"Europe/Paris"}  {"NSLocale":"fr_FR"}
 *   {"NSMeasurement":{"value":1.5,"unit":{"class":"NSUnitLength","symbol":"km","converter":[1000,0]}}}
 *     (the unit's run-time class; "converter":[coefficient,constant] only for an NSDimension whose converter
 *     is an NSUnitConverterLinear)
 *   {"NSAttributedString":{"string":"...","runs":[[loc,len,{"NSDictionary":...}],...]}}
 *   {"KATestModel":{"id":1,"title":...,"count":7,"ratio":0.5,"flag":true,"child":...,"items":...}}
 *   {"KATestModel":{"ref":1}}  a model already printed (shared or cyclic reference), by its id
 *   {"?":"ClassName"}  anything else
 *
 * Build: Scripts/gnustep-oracle.sh (gcc $(gnustep-config --objc-flags) oracle.m $(gnustep-config --base-libs)).
 * GCC's Objective-C has no ARC, blocks or literals, hence the plain manual-retain style.
 */
#import <Foundation/Foundation.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The test model, archived under the class name "KATestModel" by the Swift tests too. */
@interface KATestModel : NSObject <NSCoding>
{
@public
  NSString *title;
  long long count;
  double ratio;
  BOOL flag;
  KATestModel *child;
  NSArray *items;
}
@end

@implementation KATestModel
- (id) initWithCoder: (NSCoder *)coder
{
  if ((self = [super init]) != nil)
    {
      title = [[coder decodeObjectForKey: @"title"] retain];
      count = [coder decodeInt64ForKey: @"count"];
      ratio = [coder decodeDoubleForKey: @"ratio"];
      flag = [coder decodeBoolForKey: @"flag"];
      child = [[coder decodeObjectForKey: @"child"] retain];
      items = [[coder decodeObjectForKey: @"items"] retain];
    }
  return self;
}
- (void) encodeWithCoder: (NSCoder *)coder
{
  [coder encodeObject: title forKey: @"title"];
  [coder encodeInt64: count forKey: @"count"];
  [coder encodeDouble: ratio forKey: @"ratio"];
  [coder encodeBool: flag forKey: @"flag"];
  if (child != nil) [coder encodeObject: child forKey: @"child"];
  [coder encodeObject: items forKey: @"items"];
}
@end

static KATestModel *model(NSString *title, long long count, double ratio, BOOL flag, NSArray *items)
{
  KATestModel *m = [KATestModel new];
  m->title = [title retain]; m->count = count; m->ratio = ratio; m->flag = flag; m->items = [items retain];
  return [m autorelease];
}

/* ---- canonical description ---- */

static NSMutableArray *seenModels;   /* models printed so far; the id is the index + 1 */

static void render(id o, NSMutableString *out);

static NSString *rendered(id o)
{
  NSMutableString *s = [NSMutableString string];
  render(o, s);
  return s;
}

static NSInteger bytewise(id a, id b, void *context)
{
  int c = strcmp([a UTF8String], [b UTF8String]);
  return c < 0 ? NSOrderedAscending : (c > 0 ? NSOrderedDescending : NSOrderedSame);
}

static void quote(NSString *s, NSMutableString *out)
{
  const unsigned char *p = (const unsigned char *)[s UTF8String];
  NSMutableData *buffer = [NSMutableData data];
  [buffer appendBytes: "\"" length: 1];
  for (; *p; p++)
    {
      char esc[8];
      if (*p == '"' || *p == '\\') { esc[0] = '\\'; esc[1] = *p; [buffer appendBytes: esc length: 2]; }
      else if (*p < 0x20) { snprintf(esc, sizeof esc, "\\u%04x", *p); [buffer appendBytes: esc length: 6]; }
      else [buffer appendBytes: p length: 1];
    }
  [buffer appendBytes: "\"" length: 1];
  [out appendString: [[[NSString alloc] initWithData: buffer encoding: NSUTF8StringEncoding] autorelease]];
}

static NSString *real(double d) { return [NSString stringWithFormat: @"%.17g", d]; }

static void list(NSArray *elements, NSMutableString *out)   /* elements are already rendered */
{
  [out appendFormat: @"[%@]", [elements componentsJoinedByString: @","]];
}

static void renderNumber(NSNumber *n, NSMutableString *out)
{
  const char *t = [n objCType];
  NSString *value;
  if (strchr("fd", t[0])) value = real([n doubleValue]);
  else if (strchr("CSILQ", t[0])) value = [NSString stringWithFormat: @"%llu", [n unsignedLongLongValue]];
  else value = [NSString stringWithFormat: @"%lld", [n longLongValue]];
  [out appendFormat: @"{\"NSNumber\":{\"type\":\"%s\",\"value\":%@}}", t, value];
}

static void renderValue(NSValue *v, NSMutableString *out)
{
  const char *t = [v objCType];
  [out appendString: @"{\"NSValue\":{\"type\":"];
  quote([NSString stringWithUTF8String: t], out);
  if (strcmp(t, @encode(NSRange)) == 0)
    [out appendFormat: @",\"range\":[%llu,%llu]", (unsigned long long)[v rangeValue].location,
      (unsigned long long)[v rangeValue].length];
  else if (strcmp(t, @encode(NSPoint)) == 0)
    [out appendFormat: @",\"point\":[%@,%@]", real([v pointValue].x), real([v pointValue].y)];
  else if (strcmp(t, @encode(NSSize)) == 0)
    [out appendFormat: @",\"size\":[%@,%@]", real([v sizeValue].width), real([v sizeValue].height)];
  else if (strcmp(t, @encode(NSRect)) == 0)
    {
      NSRect r = [v rectValue];
      [out appendFormat: @",\"rect\":[%@,%@,%@,%@]", real(r.origin.x), real(r.origin.y),
        real(r.size.width), real(r.size.height)];
    }
  [out appendString: @"}}"];
}

static void renderModel(KATestModel *m, NSMutableString *out)
{
  NSUInteger index = [seenModels indexOfObjectIdenticalTo: m];
  if (index != NSNotFound)
    {
      [out appendFormat: @"{\"KATestModel\":{\"ref\":%lu}}", (unsigned long)index + 1];
      return;
    }
  [seenModels addObject: m];
  [out appendFormat: @"{\"KATestModel\":{\"id\":%lu,\"title\":", (unsigned long)[seenModels count]];
  render(m->title, out);
  [out appendFormat: @",\"count\":%lld,\"ratio\":%@,\"flag\":%s,\"child\":", m->count, real(m->ratio),
    m->flag ? "true" : "false"];
  render(m->child, out);
  [out appendString: @",\"items\":"];
  render(m->items, out);
  [out appendString: @"}}"];
}

static void render(id o, NSMutableString *out)
{
  NSMutableArray *parts = [NSMutableArray array];
  NSEnumerator *e;
  id element;

  if (o == nil) { [out appendString: @"null"]; return; }
  if ([o isKindOfClass: [KATestModel class]]) { renderModel(o, out); return; }
  if ([o isKindOfClass: [NSString class]])
    { [out appendString: @"{\"NSString\":"]; quote(o, out); [out appendString: @"}"]; return; }
  if ([o isKindOfClass: [NSNumber class]]) { renderNumber(o, out); return; }
  if ([o isKindOfClass: [NSValue class]]) { renderValue(o, out); return; }
  if ([o isKindOfClass: [NSNull class]]) { [out appendString: @"{\"NSNull\":null}"]; return; }
  if ([o isKindOfClass: [NSData class]])
    {
      const unsigned char *b = [o bytes];
      NSUInteger i;
      [out appendString: @"{\"NSData\":\""];
      for (i = 0; i < [o length]; i++) [out appendFormat: @"%02x", b[i]];
      [out appendString: @"\"}"];
      return;
    }
  if ([o isKindOfClass: [NSDate class]])
    { [out appendFormat: @"{\"NSDate\":%@}", real([o timeIntervalSinceReferenceDate])]; return; }
  if ([o isKindOfClass: [NSUUID class]])
    { [out appendString: @"{\"NSUUID\":"]; quote([o UUIDString], out); [out appendString: @"}"]; return; }
  if ([o isKindOfClass: [NSURL class]])
    {
      [out appendString: @"{\"NSURL\":{\"relative\":"];
      quote([o relativeString], out);
      [out appendString: @",\"base\":"];
      render([o baseURL], out);
      [out appendString: @",\"absolute\":"];
      quote([o absoluteString], out);
      [out appendString: @"}}"];
      return;
    }
  if ([o isKindOfClass: [NSArray class]] || [o isKindOfClass: [NSOrderedSet class]])
    {
      for (e = [o objectEnumerator]; (element = [e nextObject]) != nil; ) [parts addObject: rendered(element)];
      [out appendFormat: @"{\"%s\":", [o isKindOfClass: [NSArray class]] ? "NSArray" : "NSOrderedSet"];
      list(parts, out);
      [out appendString: @"}"];
      return;
    }
  if ([o isKindOfClass: [NSCountedSet class]])
    {
      for (e = [o objectEnumerator]; (element = [e nextObject]) != nil; )
        [parts addObject: [NSString stringWithFormat: @"[%@,%lu]", rendered(element),
          (unsigned long)[o countForObject: element]]];
      [out appendString: @"{\"NSCountedSet\":"];
      list([parts sortedArrayUsingFunction: bytewise context: NULL], out);
      [out appendString: @"}"];
      return;
    }
  if ([o isKindOfClass: [NSSet class]])
    {
      for (e = [o objectEnumerator]; (element = [e nextObject]) != nil; ) [parts addObject: rendered(element)];
      [out appendString: @"{\"NSSet\":"];
      list([parts sortedArrayUsingFunction: bytewise context: NULL], out);
      [out appendString: @"}"];
      return;
    }
  if ([o isKindOfClass: [NSDictionary class]])
    {
      NSMutableDictionary *byKey = [NSMutableDictionary dictionary];
      NSArray *keys;
      NSUInteger i;
      for (e = [o keyEnumerator]; (element = [e nextObject]) != nil; )
        [byKey setObject: rendered([o objectForKey: element]) forKey: rendered(element)];
      keys = [[byKey allKeys] sortedArrayUsingFunction: bytewise context: NULL];
      for (i = 0; i < [keys count]; i++)
        [parts addObject: [NSString stringWithFormat: @"[%@,%@]", [keys objectAtIndex: i],
          [byKey objectForKey: [keys objectAtIndex: i]]]];
      [out appendString: @"{\"NSDictionary\":"];
      list(parts, out);
      [out appendString: @"}"];
      return;
    }
  if ([o isKindOfClass: [NSIndexSet class]])
    {
      NSUInteger i = [o firstIndex];
      while (i != NSNotFound)
        {
          NSUInteger length = 1;
          while ([o containsIndex: i + length]) length++;
          [parts addObject: [NSString stringWithFormat: @"[%lu,%lu]", (unsigned long)i, (unsigned long)length]];
          i = [o indexGreaterThanIndex: i + length - 1];
        }
      [out appendString: @"{\"NSIndexSet\":"];
      list(parts, out);
      [out appendString: @"}"];
      return;
    }
  if ([o isKindOfClass: [NSIndexPath class]])
    {
      NSUInteger i;
      for (i = 0; i < [o length]; i++)
        [parts addObject: [NSString stringWithFormat: @"%lu", (unsigned long)[o indexAtPosition: i]]];
      [out appendString: @"{\"NSIndexPath\":"];
      list(parts, out);
      [out appendString: @"}"];
      return;
    }
  if ([o isKindOfClass: [NSMeasurement class]])
    {
      /* GNUstep's -[NSMeasurement initWithCoder:] keeps its unit without retaining it, so releasing the
         unarchiver's objects later crashes (signal 11, seen on every NSMeasurement archive, Apple's too):
         take the reference it forgot, and leak it. */
      NSUnit *unit = [[o unit] retain];
      [out appendFormat: @"{\"NSMeasurement\":{\"value\":%@,\"unit\":", real([o doubleValue])];
      if (unit == nil) [out appendString: @"null"];
      else
        {
          [out appendString: @"{\"class\":"];
          quote(NSStringFromClass([unit class]), out);
          [out appendString: @",\"symbol\":"];
          if ([unit symbol] == nil) [out appendString: @"null"]; else quote([unit symbol], out);
          if ([unit isKindOfClass: [NSDimension class]]
            && [[(NSDimension *)unit converter] isKindOfClass: [NSUnitConverterLinear class]])
            {
              NSUnitConverterLinear *c = (NSUnitConverterLinear *)[(NSDimension *)unit converter];
              [out appendFormat: @",\"converter\":[%@,%@]", real([c coefficient]), real([c constant])];
            }
          [out appendString: @"}"];
        }
      [out appendString: @"}}"];
      return;
    }
  if ([o isKindOfClass: [NSTimeZone class]])
    { [out appendString: @"{\"NSTimeZone\":"]; quote([o name], out); [out appendString: @"}"]; return; }
  if ([o isKindOfClass: [NSLocale class]])
    { [out appendString: @"{\"NSLocale\":"]; quote([o localeIdentifier], out); [out appendString: @"}"]; return; }
  if ([o isKindOfClass: [NSAttributedString class]])
    {
      NSUInteger at = 0, length = [o length];
      while (at < length)
        {
          NSRange run;
          NSDictionary *attributes = [o attributesAtIndex: at effectiveRange: &run];
          [parts addObject: [NSString stringWithFormat: @"[%lu,%lu,%@]", (unsigned long)run.location,
            (unsigned long)run.length, rendered(attributes)]];
          at = NSMaxRange(run);
        }
      [out appendString: @"{\"NSAttributedString\":{\"string\":"];
      quote([o string], out);
      [out appendString: @",\"runs\":"];
      list(parts, out);
      [out appendString: @"}}"];
      return;
    }
  [out appendString: @"{\"?\":"];
  quote(NSStringFromClass([o class]), out);
  [out appendString: @"}"];
}

/* ---- samples for `encode` ---- */

static NSString *utf8(const char *s) { return [NSString stringWithUTF8String: s]; }

static id sample(NSString *name)
{
  if ([name isEqual: @"int"]) return [NSNumber numberWithInt: 42];
  if ([name isEqual: @"largeInt"]) return [NSNumber numberWithLongLong: -5000000000LL];
  if ([name isEqual: @"uint64Max"]) return [NSNumber numberWithUnsignedLongLong: 18446744073709551615ULL];
  if ([name isEqual: @"bool"]) return [NSNumber numberWithBool: YES];
  if ([name isEqual: @"double"]) return [NSNumber numberWithDouble: -0.1];
  if ([name isEqual: @"float"]) return [NSNumber numberWithFloat: 1.25f];
  if ([name isEqual: @"string"]) return utf8("h\xc3\xa9llo, w\xc3\xb6rld \xe2\x9c\x93");
  if ([name isEqual: @"emptyString"]) return @"";
  if ([name isEqual: @"mutableString"]) return [NSMutableString stringWithString: @"grow"];
  if ([name isEqual: @"data"]) return [NSData dataWithBytes: "\x00\x01\x02\xff" length: 4];
  if ([name isEqual: @"date"]) return [NSDate dateWithTimeIntervalSinceReferenceDate: 123456.75];
  if ([name isEqual: @"uuid"])
    return [[[NSUUID alloc] initWithUUIDString: @"01020304-0506-0708-090A-0B0C0D0E0F10"] autorelease];
  if ([name isEqual: @"url"]) return [NSURL URLWithString: @"https://example.com/a?b=c"];
  if ([name isEqual: @"relativeURL"])
    return [NSURL URLWithString: @"docs/page.html" relativeToURL: [NSURL URLWithString: @"https://example.com/base/"]];
  if ([name isEqual: @"emptyRelativeURL"])
    return [NSURL URLWithString: @"" relativeToURL: [NSURL URLWithString: @"https://example.com/base/page?q=1#top"]];
  if ([name isEqual: @"null"]) return [NSNull null];
  if ([name isEqual: @"array"])
    return [NSArray arrayWithObjects: [NSNumber numberWithInt: 1], @"two", [NSNumber numberWithBool: NO], nil];
  if ([name isEqual: @"dictionary"])
    return [NSDictionary dictionaryWithObjectsAndKeys: @"n", @"name", [NSNumber numberWithInt: 3], @"count", nil];
  if ([name isEqual: @"set"]) return [NSSet setWithObjects: @"a", @"b", @"c", nil];
  if ([name isEqual: @"orderedSet"]) return [NSOrderedSet orderedSetWithObjects: @"z", @"a", @"m", nil];
  if ([name isEqual: @"nested"])
    return [NSDictionary dictionaryWithObjectsAndKeys:
      [NSArray arrayWithObjects: [NSArray arrayWithObject: [NSNumber numberWithInt: 1]], [NSArray array],
        [NSArray arrayWithObjects: [NSNumber numberWithInt: 2], [NSNumber numberWithInt: 3], nil], nil], @"lists",
      [NSDictionary dictionaryWithObject: [NSArray arrayWithObject: @"v"] forKey: @"k"], @"map",
      [NSNull null], @"nothing", nil];
  if ([name isEqual: @"model"])
    {
      KATestModel *root = model(@"root", 7, 0.5, YES, [NSArray arrayWithObjects: @"a", @"b", nil]);
      root->child = [model(@"leaf", -3, 2.25, NO, [NSArray array]) retain];
      return root;
    }
  if ([name isEqual: @"sharedModel"])
    {
      KATestModel *shared = model(@"shared", 1, 1, YES, [NSArray array]);
      return [NSArray arrayWithObjects: shared, shared, nil];
    }
  if ([name isEqual: @"cyclicModel"])
    {
      KATestModel *a = model(@"a", 1, 0, YES, [NSArray array]), *b = model(@"b", 2, 0, NO, [NSArray array]);
      a->child = [b retain];
      b->child = [a retain];
      return a;
    }
  if ([name isEqual: @"range"]) return [NSValue valueWithRange: NSMakeRange(3, 4)];
  if ([name isEqual: @"intArrayValue"])
    { int ints[3] = {1, 2, 3}; return [NSValue valueWithBytes: ints objCType: "[3i]"]; }
  if ([name isEqual: @"indexSet"])
    {
      NSMutableIndexSet *set = [NSMutableIndexSet indexSet];
      [set addIndexesInRange: NSMakeRange(1, 3)];
      [set addIndex: 9];
      return set;
    }
  if ([name isEqual: @"indexPathEmpty"]) return [[[NSIndexPath alloc] init] autorelease];
  if ([name isEqual: @"indexPathOne"]) return [NSIndexPath indexPathWithIndex: 7];
  if ([name isEqual: @"indexPathMany"])
    {
      NSUInteger indexes[3] = {4, 8, 300};
      return [NSIndexPath indexPathWithIndexes: indexes length: 3];
    }
  if ([name isEqual: @"measurement"])
    return [[[NSMeasurement alloc] initWithDoubleValue: 1.5 unit: [NSUnitLength kilometers]] autorelease];
  if ([name isEqual: @"measurementPlainUnit"])
    return [[[NSMeasurement alloc] initWithDoubleValue: -2.25
      unit: [[[NSUnit alloc] initWithSymbol: @"widgets"] autorelease]] autorelease];
  if ([name isEqual: @"timeZone"]) return [NSTimeZone timeZoneWithName: @"Europe/Paris"];
  if ([name isEqual: @"locale"]) return [[[NSLocale alloc] initWithLocaleIdentifier: @"fr_FR"] autorelease];
  if ([name isEqual: @"attributedString"])
    return [[[NSAttributedString alloc] initWithString: @"hello"
      attributes: [NSDictionary dictionaryWithObject: @"v" forKey: @"k"]] autorelease];
  /* Canonically equivalent strings with different UTF-16 units: NSString's -isEqual: tells them apart. */
  if ([name isEqual: @"equivalentKeys"])
    return [NSDictionary dictionaryWithObjectsAndKeys: [NSNumber numberWithInt: 1], utf8("\xc3\xa9"),
      [NSNumber numberWithInt: 2], utf8("e\xcc\x81"), nil];
  if ([name isEqual: @"equivalentMembers"])
    return [NSSet setWithObjects: utf8("\xc3\x85"), utf8("\xe2\x84\xab"), utf8("\xc3\xa9"), utf8("e\xcc\x81"), nil];
  if ([name isEqual: @"countedSet"])
    {
      NSCountedSet *set = [NSCountedSet set];
      [set addObject: @"a"]; [set addObject: @"a"]; [set addObject: @"b"];
      return set;
    }
  return nil;
}

/* `batch` mode: one archive after another, each with its own autorelease pool. An archive GNUstep cannot
   read prints its exception and leaves its unarchiver unreleased (GNUstep can crash releasing a coder after an
   exception). */
static int batch(const char *directory, long count)
{
  long n;
  for (n = 0; n < count; n++)
    {
      NSAutoreleasePool *pool = [NSAutoreleasePool new];
      NSString *base = [NSString stringWithFormat: @"%s/%ld", directory, n];
      NSData *bytes = [NSData dataWithContentsOfFile: [base stringByAppendingString: @".archive"]];
      NSKeyedUnarchiver *unarchiver = nil;
      NSKeyedArchiver *archiver = nil;
      NSMutableData *output = [NSMutableData data];
      id root;
      if (bytes == nil) { printf("%ld error cannot read %s.archive\n", n, [base UTF8String]); [pool release]; continue; }
      [seenModels removeAllObjects];
      @try
        {
          unarchiver = [[NSKeyedUnarchiver alloc] initForReadingWithData: bytes];
          root = [unarchiver decodeObjectForKey: @"root"];
          [unarchiver finishDecoding];
          printf("%ld %s\n", n, [rendered(root) UTF8String]);
          if (root != nil)
            {
              archiver = [[NSKeyedArchiver alloc] initForWritingWithMutableData: output];
              [archiver encodeObject: [NSArray arrayWithObjects: root, root, nil] forKey: @"root"];
              [archiver finishEncoding];
              [output writeToFile: [base stringByAppendingString: @".gnustep"] atomically: NO];
              [archiver release];
            }
          [unarchiver release];
        }
      @catch (NSException *exception)
        {
          printf("%ld error %s: %s\n", n, [[exception name] UTF8String], [[exception reason] UTF8String]);
        }
      fflush(stdout);
      [pool release];
    }
  return 0;
}

/* ---- decode-top: the system fields of encode-top, read back from $top with the typed calls ----
   Prints, one per line: isZoneWide=, wasCached= (decodeBoolForKey:, 1 or 0), changeTag= (decodeInt64ForKey:),
   version= (decodeIntForKey:), ratio= (decodeDoubleForKey:, %.17g), etag= (decodeBytesForKey:returnedLength:,
   lowercase hex), then RecordName=, ModificationDate=, ZoneID= (decodeObjectForKey:, in the canonical
   description). A typed call on a key whose value it cannot read raises, which main reports. */
static int decodeTop(const char *path)
{
  NSData *bytes = [NSData dataWithContentsOfFile: utf8(path)];
  NSKeyedUnarchiver *unarchiver;
  NSUInteger length = 0, i;
  const uint8_t *etag;
  NSMutableString *hex = [NSMutableString string];
  if (bytes == nil) { fprintf(stderr, "oracle: cannot read %s\n", path); return 1; }
  unarchiver = [[[NSKeyedUnarchiver alloc] initForReadingWithData: bytes] autorelease];
  if (unarchiver == nil) { fprintf(stderr, "oracle: not a keyed archive: %s\n", path); return 1; }
  printf("isZoneWide=%d\n", [unarchiver decodeBoolForKey: @"isZoneWide"] ? 1 : 0);
  printf("wasCached=%d\n", [unarchiver decodeBoolForKey: @"wasCached"] ? 1 : 0);
  printf("changeTag=%lld\n", (long long)[unarchiver decodeInt64ForKey: @"changeTag"]);
  printf("version=%d\n", [unarchiver decodeIntForKey: @"version"]);
  printf("ratio=%s\n", [real([unarchiver decodeDoubleForKey: @"ratio"]) UTF8String]);
  etag = [unarchiver decodeBytesForKey: @"etag" returnedLength: &length];
  for (i = 0; etag != NULL && i < length; i++) [hex appendFormat: @"%02x", etag[i]];
  printf("etag=%s\n", [hex UTF8String]);
  printf("RecordName=%s\n", [rendered([unarchiver decodeObjectForKey: @"RecordName"]) UTF8String]);
  printf("ModificationDate=%s\n", [rendered([unarchiver decodeObjectForKey: @"ModificationDate"]) UTF8String]);
  printf("ZoneID=%s\n", [rendered([unarchiver decodeObjectForKey: @"ZoneID"]) UTF8String]);
  [unarchiver finishDecoding];
  return 0;
}

int main(int argc, char **argv)
{
  NSAutoreleasePool *pool = [NSAutoreleasePool new];
  int status = 0;

  seenModels = [NSMutableArray new];
  @try
    {
      if (argc == 3 && strcmp(argv[1], "decode") == 0)
        {
          NSData *bytes = [NSData dataWithContentsOfFile: utf8(argv[2])];
          NSKeyedUnarchiver *unarchiver;
          NSString *line;
          if (bytes == nil) { fprintf(stderr, "oracle: cannot read %s\n", argv[2]); return 1; }
          unarchiver = [[[NSKeyedUnarchiver alloc] initForReadingWithData: bytes] autorelease];
          if (unarchiver == nil) { fprintf(stderr, "oracle: not a keyed archive: %s\n", argv[2]); return 1; }
          line = rendered([unarchiver decodeObjectForKey: @"root"]);
          [unarchiver finishDecoding];
          printf("%s\n", [line UTF8String]);
        }
      else if ((argc == 4 || (argc == 5 && strcmp(argv[4], "xml") == 0)) && strcmp(argv[1], "encode") == 0)
        {
          id value = sample(utf8(argv[2]));
          NSMutableData *bytes = [NSMutableData data];
          NSKeyedArchiver *archiver;
          if (value == nil) { fprintf(stderr, "oracle: no sample named %s\n", argv[2]); return 2; }
          archiver = [[[NSKeyedArchiver alloc] initForWritingWithMutableData: bytes] autorelease];
          if (argc == 5) [archiver setOutputFormat: NSPropertyListXMLFormat_v1_0];
          [archiver encodeObject: value forKey: @"root"];
          [archiver finishEncoding];
          if (![bytes writeToFile: utf8(argv[3]) atomically: NO])
            { fprintf(stderr, "oracle: cannot write %s\n", argv[3]); return 1; }
        }
      else if (argc == 3 && strcmp(argv[1], "encode-top") == 0)
        {
          /* A record's system fields written straight into the archiver, as CloudKit's
             -[CKRecord encodeSystemFieldsWithCoder:] does: scalars land in $top inline, objects as UIDs. */
          NSMutableData *bytes = [NSMutableData data];
          NSKeyedArchiver *archiver = [[[NSKeyedArchiver alloc] initForWritingWithMutableData: bytes] autorelease];
          [archiver encodeBool: YES forKey: @"isZoneWide"];
          [archiver encodeBool: NO forKey: @"wasCached"];
          [archiver encodeInt64: 1234567890123LL forKey: @"changeTag"];
          [archiver encodeInt: -7 forKey: @"version"];
          [archiver encodeDouble: 0.25 forKey: @"ratio"];
          [archiver encodeBytes: (const uint8_t *)"\x00\x01\xfe" length: 3 forKey: @"etag"];
          [archiver encodeObject: @"record-1" forKey: @"RecordName"];
          [archiver encodeObject: [NSDate dateWithTimeIntervalSinceReferenceDate: 123456.75] forKey: @"ModificationDate"];
          [archiver encodeObject: model(@"zone", 3, 0.5, YES, [NSArray arrayWithObjects: @"a", nil]) forKey: @"ZoneID"];
          [archiver finishEncoding];
          if (![bytes writeToFile: utf8(argv[2]) atomically: NO])
            { fprintf(stderr, "oracle: cannot write %s\n", argv[2]); return 1; }
        }
      else if (argc == 4 && strcmp(argv[1], "batch") == 0)
        status = batch(argv[2], atol(argv[3]));
      else if (argc == 3 && strcmp(argv[1], "decode-top") == 0)
        status = decodeTop(argv[2]);
      else
        {
          fprintf(stderr, "usage: oracle decode FILE | oracle encode NAME FILE [xml] | oracle encode-top FILE"
                  " | oracle batch DIR COUNT | oracle decode-top FILE\n");
          status = 64;
        }
    }
  @catch (NSException *exception)
    {
      fprintf(stderr, "oracle: %s: %s\n", [[exception name] UTF8String], [[exception reason] UTF8String]);
      status = 1;
    }
  /* After an exception GNUstep's archiver can crash while being released (seen with NSValue): leave now. */
  fflush(stdout);
  if (status != 0) _exit(status);
  [pool release];
  return 0;
}
