public enum ArchiveDumpPlaceholder {}
