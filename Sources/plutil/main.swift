// plutil: Apple's plutil command line for property lists and keyed archives. The logic is in PlutilCore.
import PlutilCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

exit(PlutilCommand.main())
