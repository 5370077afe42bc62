#!/bin/sh
# Regenerates the fixtures with the sample's own old models (version 1; the AddressBookKit ledger). Never edit them by hand.
# Run from the package root. The bytes are deterministic; SchemaMigrationTests checks that they match.
set -e
swift run schema-migration --write-v1 Samples/SchemaMigration/Fixtures/address-book-v1.archive
swift run schema-migration --write-kit Samples/SchemaMigration/Fixtures/address-book-kit-ledger.archive
