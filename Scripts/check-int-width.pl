#!/usr/bin/env perl
# The 32-bit Int check Scripts/check-int-width.sh runs (see there for the interface). Perl, which every Debian
# and macOS machine has (Debian's perl-base is essential), reads all the Swift files in a second; the check is
# textual, line by line, after blanking string literals and dropping comments, with a per-file table of the
# names each file declares as 64-bit, as a UID, or as an `Int.max`/`Int.min` sentinel.
#
# Rules (a line gets at most one finding, the first rule that matches):
#   shift-int-by-24     `Int(x) << k` with k from 24: with a 32-bit Int a byte >= 0x80 shifted by 24 gives a
#                       negative Int, and by 32 or more gives 0 (W5's shape).
#   bytes-into-int      an integer built in Int from bytes by shifts and ORs (`x << 8 | Int(b)`, `Int(b) << 8 |`):
#                       four or more bytes overflow a 32-bit Int; build it in a fixed-width type.
#   shift-by-32         a shift by a literal of 32 or more on an operand not visibly 64-bit: 0 (or -1) with a
#                       32-bit Int; and `x << 31` not visibly of a 32-bit or wider fixed type: Int32.min, negative,
#                       with a 32-bit Int. A line naming UInt64/Int64 (and, for 31, UInt32/Int32/UInt or a declared
#                       non-Int type: `let tag: UInt32 = 1 << 31`), or whose shifted identifier the file declares
#                       UInt64/Int64, passes.
#   int-max-in-archive  `Int.max`/`Int.min`, or a name the file declares as one (`let undefined = Int.max`), on a
#                       line that encodes, decodes or compares archive values, and any such `let`: the value
#                       is 2^63 - 1 or 2^31 - 1 by platform, so an archive written on one reads wrong on the other
#                       (W6's shape). Use the fixed-width constant the format means (Int64.max).
#   int-of-wide-constant  `Int(UInt32.max)`, `Int(Int64.max)`, ... or `Int(NAME)` of a constant the file declares
#                       UInt32/UInt64/Int64: traps with a 32-bit Int.
#   int-of-64-bit       `Int(x)` with no label of a value the file knows is 64-bit: `UInt64(...)`/`Int64(...)`, a
#                       name it declares UInt64/Int64, `.int64Value`/`.uint64Value`, or a UID's `.value` (a name
#                       bound by `.uid(let x)`, declared `: UID`, or named `...uid`): traps with a 32-bit Int when
#                       the value is from input. Use `Int(exactly:)` and throw, or check the bound first: a
#                       comparison `x < bound` (not `Int(x) < bound`) on the line or the six before it passes.
#
# A finding is accepted by an inline marker on its line, `// int-width: RULE REASON`, or by an entry of
# Scripts/int-width-allow.txt (`PATH | RULE | CODE FRAGMENT | REASON`, the fragment `*` for every finding of that
# rule in that file). An allow-list entry that accepts nothing is itself a finding (a stale entry).
use strict;
use warnings;

my $self_test = @ARGV && $ARGV[0] eq '--self-test';
shift @ARGV if $self_test;
my $allow_path = 'Scripts/int-width-allow.txt';

# The rules, in the order they are tried, with what each finding says.
my %message = (
    'shift-int-by-24' => 'Int(...) shifted by 24 or more: negative or 0 with a 32-bit Int; build it in UInt32/UInt64',
    'bytes-into-int' => 'an integer built in Int from bytes: overflows a 32-bit Int past 3 bytes; build it in a fixed-width type',
    'shift-by-32' => 'shift by 32 or more (0 with a 32-bit Int), or 1 << 31 (negative with a 32-bit Int), on an operand not known to be wide enough',
    'int-max-in-archive' => 'Int.max/Int.min is 2^31 - 1 on a 32-bit Int: an archive value or sentinel must be fixed-width (Int64.max)',
    'int-of-wide-constant' => 'Int(...) of a constant above Int32.max traps with a 32-bit Int; use a fixed-width type or Int(clamping:)',
    'int-of-64-bit' => 'Int(...) of a 64-bit value traps with a 32-bit Int when it is from input; use Int(exactly:) and throw, or check it first',
);

# Blanks string literals (keeping the quotes) and drops comments from one line; `$state` carries an open block
# comment or multi-line string literal from line to line ('', 'comment' or 'string').
sub code_of {
    my ($line, $state) = @_;
    my $out = '';
    my $i = 0;
    my $n = length $line;
    while ($i < $n) {
        if ($$state eq 'comment') {
            my $end = index($line, '*/', $i);
            return $out if $end < 0;
            $i = $end + 2;
            $$state = '';
            next;
        }
        if ($$state eq 'string') {
            my $end = index($line, '"""', $i);
            return $out if $end < 0;
            $i = $end + 3;
            $$state = '';
            $out .= '""';
            next;
        }
        my $rest = substr($line, $i);
        if ($rest =~ /^\/\//) { return $out }
        if ($rest =~ /^\/\*/) { $$state = 'comment'; $i += 2; next }
        if ($rest =~ /^#*"""/) {
            my ($open) = $rest =~ /^(#*""")/;
            $i += length $open;
            $$state = 'string';
            next;
        }
        if ($rest =~ /^(#*)"((?:[^"\\]|\\.)*)"\1/) {
            $i += length($&);
            $out .= '""';
            next;
        }
        $out .= substr($line, $i, 1);
        $i++;
    }
    return $out;
}

# Checks one file (its lines), returning findings as [line number, rule, line].
sub check_lines {
    my (@lines) = @_;
    my $state = '';
    my @code = map { code_of($_, \$state) } @lines;
    my $all = join("\n", @code);

    # The file's table of names.
    my (%wide, %other, %uid, %sentinel, %wide_constant);
    while ($all =~ /\b([A-Za-z_]\w*)\s*:\s*(\[?[A-Z]\w*)/g) {
        my ($name, $type) = ($1, $2);
        if ($type eq 'UInt64' || $type eq 'Int64') { $wide{$name} = 1 }
        elsif ($type eq 'UID') { $uid{$name} = 1 }
        else { $other{$name} = 1 }
    }
    $wide{$1} = 1 while $all =~ /\b(?:let|var)\s+([A-Za-z_]\w*)\s*=\s*U?Int64\(/g;
    $uid{$1} = 1 while $all =~ /\.uid\(\s*let\s+([A-Za-z_]\w*)\s*\)/g;
    $uid{$1} = 1 while $all =~ /\b(?:let|var)\s+([A-Za-z_]\w*)\s*=\s*UID\(/g;
    $sentinel{$1} = 1 while $all =~ /\blet\s+([A-Za-z_]\w*)\s*(?::\s*Int\s*)?=\s*Int\.(?:max|min)\s*(?:\n|$)/g;
    $wide_constant{$1} = 1 while $all =~ /\blet\s+([A-Za-z_]\w*)\s*:\s*(?:UInt32|UInt64|Int64)\s*=/g;
    delete $wide{$_} for keys %other;  # declared with another type too: not known to be 64-bit
    my $sentinels = join('|', map { quotemeta } sort keys %sentinel);

    my @findings;
    for my $index (0 .. $#code) {
        my $code = $code[$index];
        next unless $code =~ /\S/;
        next if $lines[$index] =~ /\/\/\s*int-width:\s*[\w-]+/;  # accepted inline; the marker names the rule and why
        my $window = join("\n", @code[($index >= 6 ? $index - 6 : 0) .. $index]);
        my $rule = rule_of($code, \%wide, \%uid, $sentinels, \%wide_constant, $window);
        push @findings, [$index + 1, $rule, $lines[$index]] if $rule;
    }
    return @findings;
}

# The first rule `$code` (one line, strings blanked, no comment) breaks, or undef.
sub rule_of {
    my ($code, $wide, $uid, $sentinels, $wide_constant, $window) = @_;
    my $int_call = qr/(?<![\w.])Int\((?!\s*\w+\s*:)/;  # `Int(` with no argument label
    my $balanced = qr/(\((?:[^()]++|(?-1))*\))/;

    return 'shift-int-by-24' if $code =~ /(?<![\w.])Int$balanced\s*<<=?\s*(?:2[4-9]|[3-9]\d|\d{3,})\b/;

    return 'bytes-into-int' if $code =~ $int_call && $code =~ /<<|>>/ && $code =~ /(?<!\|)\|(?!\|)/
        && ($code =~ /<<\s*\w+\s*\|=?\s*Int\(/ || $code =~ /(?<![\w.])Int$balanced\s*<<\s*\w+\s*\|/
            || $code =~ /\|=\s*Int$balanced\s*<</);

    my $by_32 = $code =~ /(<<|>>)=?\s*(?:3[2-9]|[4-9]\d|\d{3,})\b/;
    my $left_by_31 = $code =~ /<<=?\s*31\b/ && $code !~ /\bU?Int32\b|\bUInt\b|:\s*(?!Int\b)[A-Z]\w*\s*=/;
    if (($by_32 || $left_by_31) && $code !~ /\bU?Int64\b/) {
        my ($operand) = $code =~ /([A-Za-z_]\w*)\)?\s*(?:<<|>>)=?\s*\d/;
        return 'shift-by-32' unless defined $operand && $wide->{$operand};
    }

    my $archive_words = qr/encode|decode|forKey|PropertyListInteger|\.integer\(/;
    if ($code =~ /(?<![\w.])Int\.(?:max|min)\b/ || ($sentinels ne '' && $code =~ /(?<![\w.])(?:Self\.)?(?:$sentinels)\b/)) {
        return 'int-max-in-archive' if $code =~ $archive_words;
        return 'int-max-in-archive' if $code =~ /\blet\s+\w+\s*(?::\s*Int\s*)?=\s*Int\.(?:max|min)\s*$/;
    }

    return 'int-of-wide-constant' if $code =~ /$int_call\s*(?:UInt32|UInt64|Int64)\.(?:max|min)\b/;
    while ($code =~ /$int_call\s*(?:Self\.)?([A-Za-z_]\w*)\s*\)/g) {
        return 'int-of-wide-constant' if $wide_constant->{$1};
    }

    return 'int-of-64-bit' if $code =~ /$int_call\s*U?Int64\(/;
    while ($code =~ /$int_call\s*((?:[A-Za-z_]\w*[?!]?\.)*)([A-Za-z_]\w*)\s*\)/g) {
        my ($chain, $last) = ($1, $2);
        # A checked path: the value was compared with a bound (`uid.value < UInt64(objects.count)`) on this
        # line or the six before it, not after converting it (`Int(uid.value) < count` is no check).
        next if $window =~ /(?<!Int\()(?<![\w.])\Q$chain$last\E\s*<=?\s*[\w(]/;
        return 'int-of-64-bit' if $last eq 'int64Value' || $last eq 'uint64Value';
        if ($chain eq '') { return 'int-of-64-bit' if $wide->{$last}; next }
        my ($owner) = $chain =~ /([A-Za-z_]\w*)[?!]?\.$/;
        return 'int-of-64-bit' if $last eq 'value' && ($uid->{$owner} || $owner =~ /uid$/i);
        return 'int-of-64-bit' if $last ne 'value' && $wide->{$last};
    }
    return undef;
}

# The allow-list: [path, rule, fragment, reason, uses].
sub read_allow_list {
    my @entries;
    return @entries unless -e $allow_path;
    open my $in, '<', $allow_path or die "error: cannot read $allow_path: $!\n";
    while (my $line = <$in>) {
        chomp $line;
        next if $line =~ /^\s*(#|$)/;
        my @fields = map { s/^\s+|\s+$//gr } split /\s\|\s/, $line, 4;
        die "error: $allow_path:$.: expected PATH | RULE | FRAGMENT | REASON\n"
            unless @fields == 4 && $fields[3] ne '' && $message{$fields[1]};
        push @entries, [@fields, 0, $.];
    }
    return @entries;
}

sub swift_files {
    my @roots = @_;
    my @files;
    for my $root (@roots) {
        if (-f $root) { push @files, $root; next }
        next unless -d $root;
        open my $find, '-|', 'find', $root, '-name', '*.swift', '-type', 'f', '-not', '-path', '*/.build/*'
            or die "error: find $root: $!\n";
        chomp(my @found = <$find>);
        push @files, @found;
    }
    return sort @files;
}

sub read_lines {
    my ($file) = @_;
    open my $in, '<', $file or die "error: cannot read $file: $!\n";
    chomp(my @lines = <$in>);
    return @lines;
}

if ($self_test) { exit self_test() }

my @roots = @ARGV ? @ARGV : grep { -d } qw(Sources Tests Samples Benchmarks Fuzz);
my @allow = @ARGV ? () : read_allow_list();
my ($count, $accepted) = (0, 0);
for my $file (swift_files(@roots)) {
    for my $finding (check_lines(read_lines($file))) {
        my ($number, $rule, $line) = @$finding;
        my ($entry) = grep { $_->[0] eq $file && $_->[1] eq $rule && ($_->[2] eq '*' || index($line, $_->[2]) >= 0) } @allow;
        if ($entry) { $entry->[4]++; $accepted++; next }
        print "$file:$number: [$rule] $message{$rule}\n    $line\n";
        $count++;
    }
}
for my $entry (grep { $_->[4] == 0 } @allow) {
    print "$allow_path:$entry->[5]: a stale entry: no [$entry->[1]] finding in $entry->[0] contains \"$entry->[2]\"\n";
    $count++;
}
if ($count) {
    print STDERR "error: $count place(s) assume a 64-bit Int (Apple Watch's arm64_32 has a 32-bit one)\n";
    exit 1;
}
print "no arithmetic assuming a 64-bit Int in @roots ($accepted accepted by $allow_path)\n";
exit 0;

# The checker on lines it must report (each with its rule) and lines it must not, among them the lines of the
# two faults an audit found that the previous, shift-only check missed (copied verbatim from the code they were in).
sub self_test {
    my @cases = (
        # W5: TypedstreamText.swift, oldPropertyListString's 32-bit length built in Int (a top byte >= 0x80 gave a
        # negative length on arm64_32, then an invalid range trapped). Only the first line is the fault's own.
        ['shift-int-by-24', '    func word(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }'],
        ['', '    let type = word(0), length = word(4)'],
        ['', '    guard length <= bytes.count - 8, (bytes.count - 8 - length) < 4 else { return nil }'],
        ['', '    let body = Array(bytes[8 ..< 8 + length])'],
        # W6: CalendarTypes+Archiving.swift, NSDateComponentUndefined as this platform's Int.max, compared with
        # what an archive holds and written into one.
        ['int-max-in-archive', '    static let undefined = Int.max'],
        ['int-max-in-archive', '        guard let value = try decoder.decodeIfPresent(Int.self, forKey: key), value != undefined else { return nil }'],
        ['int-max-in-archive', '            try encoder.encode(components[keyPath: component] ?? Self.undefined, forKey: key)'],
        # More of each shape.
        ['bytes-into-int', '            flags = flags << 8 | Int(UInt8(truncatingIfNeeded: byte))'],
        ['bytes-into-int', '        let count = bytes[8 ..< 16].reduce(0) { $0 << 8 | Int($1) }'],
        ['bytes-into-int', '        var v = 0; for b in bytes { v = v << 8 | Int(b) }'],
        ['shift-int-by-24', '    let x = Int(b) << 32'],
        ['shift-int-by-24', '    total |= Int(data[i]) << 56'],
        ['shift-by-32', 'let a = 1 << 32'],
        ['shift-by-32', 'while size < 1 << 40 { size <<= 1 }'],
        ['shift-by-32', 'x >>= 33'],
        ['shift-by-32', 'let f = 1 << 31'],
        ['shift-by-32', 'let c = count >> 48  // a trailing comment'],
        ['int-max-in-archive', '        try encoder.encode(Int.max, forKey: "NS.year")'],
        ['int-max-in-archive', '        #expect(fields[key] == .integer(PropertyListInteger(Int64(Int.max))))'],
        ['int-max-in-archive', '        if try decoder.decode(Int.self, forKey: "n") == Int.min { return nil }'],
        ['int-of-wide-constant', 'let b = Int(UInt32.max)'],
        ['int-of-wide-constant', 'let m = Int(Int64.max)'],
        ['', 'static let tag: UInt32 = 1 << 31'],
        ['int-of-wide-constant', 'let fits = offset <= Int(Self.tag)'],
        ['int-of-64-bit', 'let n = Int(UInt64(bigEndian: raw))'],
        ['int-of-64-bit', 'func f(_ raw: UInt64) -> Int { Int(raw) }'],
        ['int-of-64-bit', '    let index = Int(uid.value)'],
        ['int-of-64-bit', '    if case .uid(let cls) = v { print(objects[Int(cls.value)]) }'],
        ['int-of-64-bit', '    let k = Int(number.int64Value)'],
        ['int-of-64-bit', '    guard case .uid(let u) = item, Int(u.value) < originalCount else { return nil }'],
        # None of these may be reported.
        ['', 'var bits: UInt64 = 0'],
        ['', 'let d = bits >> 48'],
        ['', 'let e = UInt64(1) << 62'],
        ['', 'let h = x >> 31'],
        ['', 'let f2 = UInt32(1) << 31'],
        ['', '    func word(_ at: Int) -> UInt32 { UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24 }'],
        ['', '// 1 << 32 in a comment'],
        ['', '/// Int(UInt32.max) in a doc comment'],
        ['', 'let s = "Int(x) << 24 and Int.max in a string"'],
        ['', '/* Int(raw) << 32 */ let t = 1'],
        ['', 'let g = Int(clamping: UInt32.max)'],
        ['', 'let g2 = Int(exactly: raw)'],
        ['', 'let g3 = Int(truncatingIfNeeded: raw >> 8)'],
        ['', 'func h(_ word: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: word >> 56) }'],
        ['', 'let i = x << 3'],
        ['', 'static let small: UInt8 = 7'],
        ['', 'let k = Int(Self.small)'],
        ['', 'let count = Int(byte) << 16 | Int(low)  // int-width: bytes-into-int three bytes fit in 24 bits'],
        ['', '        public var maximumSize: Int = Int.max'],
        ['', '        let capped = min(limit, Int.max / 2)'],
        ['', '        let undefinedWritten: Int64 = .max'],
        ['', '        try encoder.encode(components[keyPath: component].map { Int64($0) } ?? Self.undefinedWritten, forKey: key)'],
        ['', '        let value = Int(someInt32)'],
        ['', '        let flagBits = Int(truncatingIfNeeded: flags)'],
        ['', '        guard uid.value < UInt64(storage.count) else { return nil }'],
        ['', '        let index = Int(uid.value)'],
    );
    my @lines = map { $_->[1] } @cases;
    my %found = map { $_->[0] => $_->[1] } check_lines(@lines);
    my ($bad, $reported, $wrong) = (0, 0, 0);
    for my $i (0 .. $#cases) {
        my ($expected, $line) = @{ $cases[$i] };
        my $got = $found{$i + 1} // '';
        $bad++ if $expected ne '';
        $reported++ if $expected ne '' && $got eq $expected;
        if ($got ne $expected) {
            print STDERR "self-test: line ${\($i + 1)}: expected [" . ($expected || 'none') . "], got [" . ($got || 'none') . "]: $line\n";
            $wrong++;
        }
    }
    my $good = @cases - $bad;
    if ($wrong) {
        print STDERR "error: self-test: $wrong of ${\scalar @cases} lines judged wrongly\n";
        return 1;
    }
    print "self-test: $reported of $bad bad lines reported under their rule (W5 and W6 among them), none of $good good lines reported\n";
    return 0;
}
