// What the KeyedArchive target needs from C and Swift cannot say itself: cache prefetch hints.
//
// Plain C99 plus one builtin that both clang (every Swift toolchain, every Apple triple) and GCC provide.
// Every function is `static inline`: it is compiled into the Swift caller through the Clang importer, so
// the optimizer inlines it to the single prefetch instruction (no call, no symbol in this target's library).

#ifndef KEYEDARCHIVE_C_SUPPORT_H
#define KEYEDARCHIVE_C_SUPPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define KEYEDARCHIVE_INLINE static inline __attribute__((always_inline))
#define KEYEDARCHIVE_PREFETCH(address, forWriting) __builtin_prefetch((address), (forWriting), 3)
#else
#define KEYEDARCHIVE_INLINE static inline
#define KEYEDARCHIVE_PREFETCH(address, forWriting) ((void)(address))
#endif

/// Asks the processor to bring the cache line holding `address` into every cache level, to be read soon.
/// Never faults and changes no memory, whatever the address (an instruction hint, not a load); compiles
/// to nothing on targets without a prefetch instruction.
KEYEDARCHIVE_INLINE void keyedarchive_prefetch_read(const void *address) {
    KEYEDARCHIVE_PREFETCH(address, 0);
}

/// `keyedarchive_prefetch_read` for a line about to be written.
KEYEDARCHIVE_INLINE void keyedarchive_prefetch_write(const void *address) {
    KEYEDARCHIVE_PREFETCH(address, 1);
}

#endif
