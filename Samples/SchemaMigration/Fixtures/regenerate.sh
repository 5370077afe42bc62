#!/bin/sh
# Regenerates the version-1 fixture with the sample's own version-1 model (never edit it by hand).
# Run from the package root. The bytes are deterministic; SchemaMigrationTests checks that they match.
set -e
swift run schema-migration --write-v1 Samples/SchemaMigration/Fixtures/address-book-v1.archive
