// What the KeyedArchive target needs from C because Swift cannot say it: cache prefetch hints and the
// address of the current stack frame.
//
// Plain C99 plus two builtins of clang (the compiler of every Swift toolchain, so of every Apple triple
// too; GCC has them as well). Every function is `static inline` and always inlined: the Swift compiler
// imports it through its Clang importer and the optimizer folds it into the Swift caller (one prefetch
// instruction; a read of the frame pointer), so this target's library holds no code of its own.

#ifndef KEYEDARCHIVE_C_SUPPORT_H
#define KEYEDARCHIVE_C_SUPPORT_H

/// Asks the processor to bring the cache line holding `address` into every cache level, to be read soon.
/// Never faults and changes no memory, whatever the address (an instruction hint, not a load); compiles
/// to nothing on targets without a prefetch instruction.
static inline __attribute__((always_inline)) void keyedarchive_prefetch_read(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

/// `keyedarchive_prefetch_read` for a line about to be written.
static inline __attribute__((always_inline)) void keyedarchive_prefetch_write(const void *address) {
    __builtin_prefetch(address, 1, 3);
}

/// The address of the frame of the function this is inlined into: where the thread's stack is now. The
/// machine stack, even under AddressSanitizer (whose "fake stack" may hold a function's locals instead).
static inline __attribute__((always_inline)) void *keyedarchive_frame_address(void) {
    return __builtin_frame_address(0);
}

#endif
