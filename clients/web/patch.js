// A small RFC 6902 (JSON Patch) applier for the documents the server sends.
//
// applyPatch(doc, ops) returns the patched document and never changes `doc`: the
// operations run on a deep copy, so a failing operation leaves the caller's document
// intact (the caller then asks the server for a fresh snapshot).

export class PatchError extends Error {}

function clone(value) {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

function parsePointer(pointer) {
  if (pointer === "") return [];
  if (typeof pointer !== "string" || pointer[0] !== "/") {
    throw new PatchError(`bad JSON pointer: ${pointer}`);
  }
  return pointer
    .slice(1)
    .split("/")
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function isContainer(value) {
  return value !== null && typeof value === "object";
}

function arrayIndex(array, key, allowEnd) {
  if (allowEnd && key === "-") return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(key)) throw new PatchError(`bad array index: ${key}`);
  const index = Number(key);
  const limit = allowEnd ? array.length : array.length - 1;
  if (index > limit) throw new PatchError(`array index out of range: ${key}`);
  return index;
}

function has(object, key) {
  return Object.prototype.hasOwnProperty.call(object, key);
}

function resolve(root, parts) {
  let node = root;
  for (const key of parts) {
    if (Array.isArray(node)) {
      node = node[arrayIndex(node, key, false)];
    } else if (isContainer(node) && has(node, key)) {
      node = node[key];
    } else {
      throw new PatchError(`path not found: /${parts.join("/")}`);
    }
  }
  return node;
}

function parentOf(root, parts) {
  const parent = resolve(root, parts.slice(0, -1));
  if (!isContainer(parent)) throw new PatchError(`not a container: /${parts.join("/")}`);
  return parent;
}

function get(root, pointer) {
  return resolve(root, parsePointer(pointer));
}

function add(root, pointer, value) {
  const parts = parsePointer(pointer);
  if (parts.length === 0) return value;
  const parent = parentOf(root, parts);
  const key = parts[parts.length - 1];
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, true), 0, value);
  else parent[key] = value;
  return root;
}

function remove(root, pointer) {
  const parts = parsePointer(pointer);
  if (parts.length === 0) throw new PatchError("cannot remove the whole document");
  const parent = parentOf(root, parts);
  const key = parts[parts.length - 1];
  if (Array.isArray(parent)) {
    parent.splice(arrayIndex(parent, key, false), 1);
  } else {
    if (!has(parent, key)) throw new PatchError(`path not found: ${pointer}`);
    delete parent[key];
  }
  return root;
}

function replace(root, pointer, value) {
  const parts = parsePointer(pointer);
  if (parts.length === 0) return value;
  const parent = parentOf(root, parts);
  const key = parts[parts.length - 1];
  if (Array.isArray(parent)) parent[arrayIndex(parent, key, false)] = value;
  else if (has(parent, key)) parent[key] = value;
  else throw new PatchError(`path not found: ${pointer}`);
  return root;
}

export function deepEqual(a, b) {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isContainer(a) && isContainer(b) && !Array.isArray(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((k) => has(b, k) && deepEqual(a[k], b[k]))
    );
  }
  return false;
}

function applyOne(root, op) {
  if (!isContainer(op) || typeof op.op !== "string") throw new PatchError("not an operation");
  switch (op.op) {
    case "add":
      if (!has(op, "value")) throw new PatchError("add needs a value");
      return add(root, op.path, clone(op.value));
    case "remove":
      return remove(root, op.path);
    case "replace":
      if (!has(op, "value")) throw new PatchError("replace needs a value");
      return replace(root, op.path, clone(op.value));
    case "move": {
      if (op.from === op.path) return root;
      if (op.path.startsWith(`${op.from}/`)) {
        throw new PatchError("cannot move a value into itself");
      }
      const value = get(root, op.from);
      return add(remove(root, op.from), op.path, value);
    }
    case "copy":
      return add(root, op.path, clone(get(root, op.from)));
    case "test":
      if (!deepEqual(get(root, op.path), op.value)) {
        throw new PatchError(`test failed at ${op.path}`);
      }
      return root;
    default:
      throw new PatchError(`unknown operation: ${op.op}`);
  }
}

export function applyPatch(doc, ops) {
  if (!Array.isArray(ops)) throw new PatchError("a patch is a list of operations");
  let root = clone(doc);
  for (const op of ops) root = applyOne(root, op);
  return root;
}
