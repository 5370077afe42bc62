/*
 * gui-oracle.m: gnustep-gui's (GNUstep's AppKit) keyed NSColor coding as an interop oracle for KeyedArchive.
 *
 * A separate program from oracle.m so that the Foundation oracle never needs gnustep-gui. It runs headless:
 * NSColor's keyed coding needs no display and no backend. (NSFont does: +fontWithName:size: asserts
 * "The shared NSApplication instance must be created before methods that need the backend may be called",
 * and +[NSApplication sharedApplication] then fails with "Unable to find backend back" when gnustep-back
 * is not installed, so fonts are not covered.) Two modes, as oracle.m:
 *
 *   gui-oracle decode FILE             Unarchives the root of FILE and prints one canonical line (below).
 *   gui-oracle encode NAME FILE [xml]  Archives the sample color NAME (see sample() below) into FILE.
 *
 * Canonical description:
 *   {"NSColor":{"space":"NSCalibratedRGBColorSpace","components":[r,g,b,a]}}   (also NSDeviceRGBColorSpace)
 *   {"NSColor":{"space":"NSCalibratedWhiteColorSpace","components":[w,a]}}     (also NSDeviceWhiteColorSpace)
 *   {"NSColor":{"space":"NSDeviceCMYKColorSpace","components":[c,m,y,k,a]}}
 *   {"NSColor":{"space":"NSNamedColorSpace","catalog":"System","name":"controlColor"}}
 *   {"NSColor":{"space":"..."}}  another color space     {"?":"ClassName"}  anything else     null
 * Reals are printed with %.17g.
 *
 * Build: Scripts/gnustep-oracle.sh gui (gcc $(gnustep-config --objc-flags) gui-oracle.m $(gnustep-config --gui-libs)).
 */
#import <Foundation/Foundation.h>
#import <AppKit/AppKit.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static NSString *real(double d) { return [NSString stringWithFormat: @"%.17g", d]; }

static NSString *reals(CGFloat *values, int count)
{
  NSMutableArray *parts = [NSMutableArray array];
  int i;
  for (i = 0; i < count; i++) [parts addObject: real(values[i])];
  return [NSString stringWithFormat: @"[%@]", [parts componentsJoinedByString: @","]];
}

/* Names here are ASCII without quotes or backslashes (the samples' and AppKit's), so no escaping. */
static NSString *rendered(id o)
{
  NSString *space;
  CGFloat c[5];
  if (o == nil) return @"null";
  if (![o isKindOfClass: [NSColor class]])
    return [NSString stringWithFormat: @"{\"?\":\"%@\"}", NSStringFromClass([o class])];
  space = [o colorSpaceName];
  if ([space isEqual: NSCalibratedRGBColorSpace] || [space isEqual: NSDeviceRGBColorSpace])
    {
      [o getRed: &c[0] green: &c[1] blue: &c[2] alpha: &c[3]];
      return [NSString stringWithFormat: @"{\"NSColor\":{\"space\":\"%@\",\"components\":%@}}", space, reals(c, 4)];
    }
  if ([space isEqual: NSCalibratedWhiteColorSpace] || [space isEqual: NSDeviceWhiteColorSpace])
    {
      [o getWhite: &c[0] alpha: &c[1]];
      return [NSString stringWithFormat: @"{\"NSColor\":{\"space\":\"%@\",\"components\":%@}}", space, reals(c, 2)];
    }
  if ([space isEqual: NSDeviceCMYKColorSpace])
    {
      [o getCyan: &c[0] magenta: &c[1] yellow: &c[2] black: &c[3] alpha: &c[4]];
      return [NSString stringWithFormat: @"{\"NSColor\":{\"space\":\"%@\",\"components\":%@}}", space, reals(c, 5)];
    }
  if ([space isEqual: NSNamedColorSpace])
    return [NSString stringWithFormat: @"{\"NSColor\":{\"space\":\"%@\",\"catalog\":\"%@\",\"name\":\"%@\"}}",
      space, [o catalogNameComponent], [o colorNameComponent]];
  return [NSString stringWithFormat: @"{\"NSColor\":{\"space\":\"%@\"}}", space];
}

static id sample(NSString *name)
{
  if ([name isEqual: @"calibratedRGB"]) return [NSColor colorWithCalibratedRed: 0.25 green: 0.5 blue: 0.75 alpha: 1];
  if ([name isEqual: @"deviceRGB"]) return [NSColor colorWithDeviceRed: 1 green: 0.125 blue: 0 alpha: 0.5];
  if ([name isEqual: @"calibratedWhite"]) return [NSColor colorWithCalibratedWhite: 0.5 alpha: 1];
  if ([name isEqual: @"deviceWhite"]) return [NSColor colorWithDeviceWhite: 0.375 alpha: 0.25];
  if ([name isEqual: @"deviceCMYK"])
    return [NSColor colorWithDeviceCyan: 0.5 magenta: 0.25 yellow: 0 black: 0.125 alpha: 1];
  if ([name isEqual: @"named"]) return [NSColor colorWithCatalogName: @"System" colorName: @"controlColor"];
  return nil;
}

int main(int argc, char **argv)
{
  NSAutoreleasePool *pool = [NSAutoreleasePool new];
  int status = 0;
  @try
    {
      if (argc == 3 && strcmp(argv[1], "decode") == 0)
        {
          NSData *bytes = [NSData dataWithContentsOfFile: [NSString stringWithUTF8String: argv[2]]];
          NSKeyedUnarchiver *unarchiver;
          NSString *line;
          if (bytes == nil) { fprintf(stderr, "gui-oracle: cannot read %s\n", argv[2]); return 1; }
          unarchiver = [[[NSKeyedUnarchiver alloc] initForReadingWithData: bytes] autorelease];
          if (unarchiver == nil) { fprintf(stderr, "gui-oracle: not a keyed archive: %s\n", argv[2]); return 1; }
          line = rendered([unarchiver decodeObjectForKey: @"root"]);
          [unarchiver finishDecoding];
          printf("%s\n", [line UTF8String]);
        }
      else if ((argc == 4 || (argc == 5 && strcmp(argv[4], "xml") == 0)) && strcmp(argv[1], "encode") == 0)
        {
          id value = sample([NSString stringWithUTF8String: argv[2]]);
          NSMutableData *bytes = [NSMutableData data];
          NSKeyedArchiver *archiver;
          if (value == nil) { fprintf(stderr, "gui-oracle: no sample named %s\n", argv[2]); return 2; }
          archiver = [[[NSKeyedArchiver alloc] initForWritingWithMutableData: bytes] autorelease];
          if (argc == 5) [archiver setOutputFormat: NSPropertyListXMLFormat_v1_0];
          [archiver encodeObject: value forKey: @"root"];
          [archiver finishEncoding];
          if (![bytes writeToFile: [NSString stringWithUTF8String: argv[3]] atomically: NO])
            { fprintf(stderr, "gui-oracle: cannot write %s\n", argv[3]); return 1; }
        }
      else
        {
          fprintf(stderr, "usage: gui-oracle decode FILE | gui-oracle encode NAME FILE [xml]\n");
          status = 64;
        }
    }
  @catch (NSException *exception)
    {
      fprintf(stderr, "gui-oracle: %s: %s\n", [[exception name] UTF8String], [[exception reason] UTF8String]);
      status = 1;
    }
  fflush(stdout);
  if (status != 0) _exit(status);
  [pool release];
  return 0;
}
