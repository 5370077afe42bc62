# The typedstream oracle for Tests/KeyedArchiveTests/Typedstream: prints, for each file named on the command
# line, one line of JSON with what pytypedstream (https://pypi.org/project/pytypedstream/) reads from it.
#
#   {"header": {...}, "events": [...], "decoded": [...]}   (or "decodeError" instead of "decoded")
#   {"error": "..."}                                       (pytypedstream's low-level reader rejected the file)
#
# "events" is pytypedstream's low-level event stream (typedstream.stream.TypedStreamReader), one JSON array
# per event; bytes are base64, integers decimal strings, reals the hex bit pattern of the double:
#   ["group", [encodings]] ["endgroup"] ["object"] ["endobject"] ["class", name, version] ["nil"]
#   ["ref", "object"|"class"|"C string", number] ["cstring", b64] ["atom", b64|null] ["selector", b64|null]
#   ["bytes", b64|null] ["int", "n"] ["bool", true|false] ["real", "hex"] ["bytearray", encoding, b64]
#   ["array", encoding, length] ["endarray"] ["struct", name|null, [encodings]] ["endstruct"] ["ignored"]
# "decoded" is its high-level unarchiver's result (typedstream.archiving.Unarchiver.decode_all), one
# [encodings, [values]] pair per top-level group, values in the typed form of `typed` below.
import base64, json, struct, sys

import typedstream
from typedstream import archiving, stream
from typedstream.types import appkit, foundation


def b64(b):
    return None if b is None else base64.b64encode(bytes(b)).decode("ascii")


def real(v):
    return "%016x" % struct.unpack(">Q", struct.pack(">d", v))[0]


def text(b):
    return b.decode("latin-1")


def event(e):
    if isinstance(e, stream.BeginTypedValues):
        return ["group", [text(x) for x in e.encodings]]
    if isinstance(e, stream.EndTypedValues):
        return ["endgroup"]
    if isinstance(e, stream.BeginObject):
        return ["object"]
    if isinstance(e, stream.EndObject):
        return ["endobject"]
    if isinstance(e, stream.SingleClass):
        return ["class", text(e.name), e.version]
    if e is None:
        return ["nil"]
    if isinstance(e, stream.ObjectReference):
        return ["ref", e.referenced_type.value, e.number]
    if isinstance(e, stream.CString):
        return ["cstring", b64(e.contents)]
    if isinstance(e, stream.Atom):
        return ["atom", b64(e.contents)]
    if isinstance(e, stream.Selector):
        return ["selector", b64(e.name)]
    if isinstance(e, bool):
        return ["bool", e]
    if isinstance(e, int):
        return ["int", str(e)]
    if isinstance(e, float):
        return ["real", real(e)]
    if isinstance(e, (bytes, bytearray)):
        return ["bytes", b64(e)]
    if isinstance(e, stream.ByteArray):
        return ["bytearray", text(e.element_encoding), b64(e.data)]
    if isinstance(e, stream.BeginArray):
        return ["array", text(e.element_encoding), e.length]
    if isinstance(e, stream.EndArray):
        return ["endarray"]
    if isinstance(e, stream.BeginStruct):
        return ["struct", None if e.name is None else text(e.name), [text(x) for x in e.field_encodings]]
    if isinstance(e, stream.EndStruct):
        return ["endstruct"]
    raise TypeError("unexpected event %r" % (e,))


def class_chain(c):
    chain = []
    while c is not None:
        chain.append([text(c.name), c.version])
        c = c.superclass
    return chain


def attributed(obj, path):
    # NSAttributedString's fields as pytypedstream leaves them (it has no class for it): the string object,
    # then per run an "iI" group (attribute dictionary number from 1, run length) followed by an "@" group
    # holding the dictionary when its number is new.
    groups = obj.contents
    string = groups[0].values[0]
    dictionaries, runs, i = [], [], 1
    while i < len(groups):
        number, length = groups[i].values
        i += 1
        if number == len(dictionaries) + 1:
            dictionaries.append(typed(groups[i].values[0], path))
            i += 1
        runs.append([length, dictionaries[number - 1]])
    return {"attributedString": [typed(string, path), runs]}


def typed(v, path):
    if v is None:
        return {"nil": True}
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, float):
        return {"real": real(v)}
    if isinstance(v, (bytes, bytearray)):
        return {"bytes": b64(v)}
    if isinstance(v, archiving.Class):
        return {"class": class_chain(v)}
    if isinstance(v, archiving.Array):
        if isinstance(v.elements, (bytes, bytearray)):
            return {"bytes": b64(v.elements)}
        return {"carray": [typed(x, path) for x in v.elements]}
    if isinstance(v, archiving.GenericStruct):
        return {"struct": [typed(x, path) for x in v.fields]}
    if isinstance(v, archiving.KnownStruct):
        return {"struct": [typed(getattr(v, name), path) for name in v.__annotations__]}
    if id(v) in path:
        return {"cycle": True}
    path = path | {id(v)}
    if isinstance(v, foundation.NSString):
        return {"string": v.value}
    if isinstance(v, foundation.NSNumber):
        return {"number": [text(v.type_encoding), typed(v.value, path)]}
    if isinstance(v, foundation.NSValue):
        return {"value": [text(v.type_encoding), typed(v.value, path)]}
    if isinstance(v, foundation.NSData):
        return {"data": b64(v.data)}
    if isinstance(v, foundation.NSDate):
        return {"date": real(v.absolute_reference_date_offset)}
    if isinstance(v, foundation.NSURL):
        base = None if v.relative_to is None else typed(v.relative_to, path)
        return {"url": [base, v.value]}
    if isinstance(v, foundation.NSSet):
        return {"set": [typed(x, path) for x in v.elements]}
    if isinstance(v, foundation.NSArray):
        return {"array": [typed(x, path) for x in v.elements]}
    if isinstance(v, foundation.NSDictionary):
        return {"dict": [[typed(k, path), typed(x, path)] for k, x in v.contents.items()]}
    if isinstance(v, appkit.NSColor):
        value = v.value
        if isinstance(value, appkit.NSColor.NamedValue):
            return {"color": [v.kind.value, value.group, value.name, typed(value.color, path)]}
        return {"color": [v.kind.value] + [real(getattr(value, name)) for name in value.__annotations__]}
    if isinstance(v, appkit.NSFont):
        return {"font": [v.name, real(v.size), list(v.flags_unknown)]}
    if isinstance(v, archiving.GenericArchivedObject):
        names = [name for name, _ in class_chain(v.clazz)]
        if "NSAttributedString" in names:
            try:
                return attributed(v, path)
            except Exception as e:
                return {"unreadableAttributedString": "%s: %s" % (type(e).__name__, e)}
        return {"object": {
            "classes": class_chain(v.clazz),
            "groups": [[[text(e) for e in g.encodings], [typed(x, path) for x in g.values]] for g in v.contents],
        }}
    return {"known": type(v).__name__}


def read_one(name):
    with open(name, "rb") as f:
        data = f.read()
    try:
        import io
        reader = stream.TypedStreamReader(io.BytesIO(data))
        header = {"byteOrder": reader.byte_order, "systemVersion": reader.system_version,
                  "streamerVersion": reader.streamer_version}
        events = [event(e) for e in reader]
    except Exception as e:
        return {"error": "%s: %s" % (type(e).__name__, e)}
    result = {"header": header, "events": events}
    try:
        with archiving.Unarchiver.from_data(data) as unarchiver:
            groups = unarchiver.decode_all()
        result["decoded"] = [[[text(e) for e in g.encodings], [typed(x, frozenset()) for x in g.values]]
                             for g in groups]
    except Exception as e:
        result["decodeError"] = "%s: %s" % (type(e).__name__, e)
    return result


sys.setrecursionlimit(20000)
if len(sys.argv) > 1 and sys.argv[1] == "--version":
    print("pytypedstream-oracle ok")
    sys.exit(0)
for name in sys.argv[1:]:
    sys.stdout.write(json.dumps(read_one(name), ensure_ascii=True) + "\n")
