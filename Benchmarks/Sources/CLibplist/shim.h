#include <plist/plist.h>
