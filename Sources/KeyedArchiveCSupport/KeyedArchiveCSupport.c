// The functions of this target are `static inline` in include/KeyedArchiveCSupport.h; SwiftPM builds a
// C target only from at least one source file, and this is it.
#include "KeyedArchiveCSupport.h"
