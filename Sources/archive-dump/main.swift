// archive-dump: shows what is inside any property list or keyed archive. The logic is in ArchiveDumpCore.
import ArchiveDumpCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

exit(ArchiveDumpCommand.main())
