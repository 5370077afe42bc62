#include <plist/plist.h>
// mallopt: libplist-bench keeps freed memory in the process so both readers run on a warm heap.
#include <malloc.h>
