#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A keyed archive's `$top` and `$objects` as stored values that an edit changes in place before the graph
/// is re-written (``ArchivedObjectGraph``'s editing methods make one, edit it, and re-write it).
///
/// Objects added by an edit are appended after the archive's own (their index is at least
/// ``originalCount``); the re-write numbers every object again and drops what nothing reaches.
struct ArchiveWorkingCopy {
    var archiverName: String
    var version: PropertyListInteger
    var top: PropertyListDictionary
    var objects: [PropertyListValue]
    /// The number of objects the archive had before the edit.
    let originalCount: Int
    /// Where each new value an edit placed (by object index) comes among the references of the object (or
    /// `$top`) that holds it, as an `ArchiveReferenceOrder` sort key.
    var placed: [Int: Int] = [:]

    init(_ graph: ArchivedObjectGraph) {
        archiverName = graph.archiverName
        version = graph.version
        top = PropertyListDictionary(graph.top.map { ($0.key, $0.value.storedValue) })
        objects = Array(graph.storage)
        originalCount = objects.count
    }

    /// Where a stored value lives: the whole property list, a value of `$top`, or an entry of `$objects`;
    /// then the keys and indices inside it.
    enum Owner: Hashable {
        case root
        case top
        case object(Int)
    }

    /// One step inside a stored value: a dictionary key or an array (or set) index.
    enum Step: Hashable {
        case key(String)
        case index(Int)
    }

    /// The archive's property list, as ``ArchivedObjectGraph/propertyList`` gives it.
    var rootValue: PropertyListValue {
        .dictionary([
            "$version": .integer(version),
            "$archiver": .string(archiverName),
            "$top": .dictionary(top),
            "$objects": .array(objects),
        ])
    }

    /// The stored value of `owner`.
    func value(of owner: Owner) -> PropertyListValue? {
        switch owner {
        case .root: return rootValue
        case .top: return .dictionary(top)
        case .object(let i): return i >= 0 && i < objects.count ? objects[i] : nil
        }
    }

    /// The value at `path` inside `owner`'s stored value, or nil when a step finds nothing.
    func value(at owner: Owner, _ path: [Step]) -> PropertyListValue? {
        guard var current = value(of: owner) else { return nil }
        for step in path {
            guard let next = Self.child(of: current, step) else { return nil }
            current = next
        }
        return current
    }

    /// The child of a container at `step`, or nil.
    static func child(of value: PropertyListValue, _ step: Step) -> PropertyListValue? {
        switch (value, step) {
        case (.dictionary(let d), .key(let k)): return d[k]
        case (.array(let a), .index(let i)), (.set(let a), .index(let i)): return i >= 0 && i < a.count ? a[i] : nil
        default: return nil
        }
    }

    /// What an edit does at the last step of a path.
    enum Change {
        /// Sets the value (a dictionary key is added when absent; an array index must exist).
        case replace(PropertyListValue)
        /// Inserts the value (before the element at an array index, or as a dictionary key).
        case insert(PropertyListValue)
        /// Removes the entry.
        case remove
    }

    /// Applies `change` at `path` inside `owner`'s stored value.
    /// - Returns: false when a step finds nothing or a container does not take the step.
    mutating func modify(_ owner: Owner, _ path: [Step], _ change: Change) -> Bool {
        guard var stored = value(of: owner) else { return false }
        guard Self.modify(&stored, path[...], change) else { return false }
        switch owner {
        case .root:
            return setRoot(stored)
        case .top:
            guard case .dictionary(let d) = stored else { return false }
            top = d
        case .object(let i):
            objects[i] = stored
        }
        return true
    }

    /// Replaces the whole archive by `root`, an envelope `{$archiver, $version, $top, $objects}` of the right
    /// kinds (its rules are checked when the graph is read again after the edit); false for anything else.
    mutating func setRoot(_ root: PropertyListValue) -> Bool {
        guard case .dictionary(let d) = root, case .string(let archiver)? = d["$archiver"],
              case .integer(let version)? = d["$version"], case .dictionary(let top)? = d["$top"],
              case .array(let objects)? = d["$objects"] else { return false }
        archiverName = archiver
        self.version = version
        self.top = top
        self.objects = objects.elements
        return true
    }

    private static func modify(_ value: inout PropertyListValue, _ path: ArraySlice<Step>, _ change: Change) -> Bool {
        guard let step = path.first else { return false }
        let rest = path.dropFirst()
        switch (value, step) {
        case (.dictionary(var d), .key(let k)):
            if rest.isEmpty {
                switch change {
                case .replace(let v), .insert(let v): d[k] = v
                case .remove: d[k] = nil
                }
            } else {
                guard var child = d[k], modify(&child, rest, change) else { return false }
                d[k] = child
            }
            value = .dictionary(d)
            return true
        case (.array(let a), .index(let i)), (.set(let a), .index(let i)):
            var elements = a.elements
            if rest.isEmpty {
                switch change {
                case .replace(let v):
                    guard i >= 0 && i < elements.count else { return false }
                    elements[i] = v
                case .insert(let v):
                    guard i >= 0 && i <= elements.count else { return false }
                    elements.insert(v, at: i)
                case .remove:
                    guard i >= 0 && i < elements.count else { return false }
                    elements.remove(at: i)
                }
            } else {
                guard i >= 0 && i < elements.count else { return false }
                var child = elements[i]
                guard modify(&child, rest, change) else { return false }
                elements[i] = child
            }
            if case .set = value { value = .set(PropertyListArray(elements)) } else { value = .array(PropertyListArray(elements)) }
            return true
        default:
            return false
        }
    }

    // MARK: - Classes

    /// The class name of the instance at `index`: its `$class` UID's `$classname`.
    func className(ofObject index: Int) -> String? {
        guard index >= 0, index < objects.count, case .dictionary(let d) = objects[index],
              case .uid(let classUID)? = d["$class"], classUID.value < UInt64(objects.count),
              case .dictionary(let definition) = objects[Int(classUID.value)],
              case .string(let name)? = definition["$classname"] else { return nil }
        return name
    }

    /// The index of a class description named `name` (the first, in UID order), adding one with `chain`
    /// when the archive has none: Apple's archiver keeps one description per class.
    mutating func classDescription(named name: String, chain: [String]) -> Int {
        for (i, object) in objects.enumerated() {
            if case .dictionary(let d) = object, d["$class"] == nil, case .string(name)? = d["$classname"] { return i }
        }
        objects.append(.dictionary(["$classname": .string(name), "$classes": .array(chain.map(PropertyListValue.string))]))
        return objects.count - 1
    }

    /// The string an `NS.keys` entry stands for: an inline string, or an NSString/NSMutableString object's inline `NS.string`.
    func keyString(_ key: PropertyListValue) -> String? {
        guard case .uid(let uid) = key, uid.value < UInt64(objects.count) else { return nil }
        switch objects[Int(uid.value)] {
        case .string(let s): return uid.value == 0 ? nil : s
        case .dictionary(let d):
            guard let name = className(ofObject: Int(uid.value)),
                  FoundationClassCatalogue.standard.entry(named: name).map({ if case .string = $0.family { true } else { false } }) == true,
                  case .string(let s)? = d["NS.string"] else { return nil }
            return s
        default: return nil
        }
    }
}
