#!/usr/bin/env python3
"""Checks the include graph against the layers the build declares.

Usage: check_layers.py <layers file> <source root>

The layers file (written by CMake, cmake/layers.cmake) has one line per layer:
    <folder> <dependency folder> ...
naming the folders whose libraries the layer's library links. A file may include headers of its
own folder and of the folders its library links directly (not those it reaches only through
another layer: server/commands/ links server/command/, which links server/net/, and still may not
include server/net/); anything else is an error, and so is a cycle among the folders the includes
actually connect. Files outside every layer
(tests/, bench/, redis-compat/) are not checked, nor are tests, test support and fuzz targets
inside one (*_test.cc, *_test_support.{h,cc}, *_fuzz.cc): a test may assemble what it tests from
any layer.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
TEST_FILE = re.compile(r'(_test\.cc|_test_support\.(h|cc)|_fuzz\.cc)$')


def folder_of(path, folders):
    """The deepest layer folder that holds path, or None."""
    best = None
    for f in folders:
        if path == f or path.startswith(f + "/"):
            if best is None or len(f) > len(best):
                best = f
    return best


def main():
    layers_file, root = sys.argv[1], sys.argv[2]
    deps = {}
    with open(layers_file) as f:
        for line in f:
            words = line.split()
            if words:  # a folder may hold several libraries (base/): their links add up
                deps.setdefault(words[0], set()).update(w for w in words[1:] if w != words[0])
    folders = set(deps)
    unknown = {d for ds in deps.values() for d in ds} - folders
    if unknown:
        print("layers file names undeclared folders: " + " ".join(sorted(unknown)))
        return 1

    allowed = deps
    errors = []
    edges = {}
    for folder in sorted(folders):
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if not name.endswith((".h", ".cc")) or TEST_FILE.search(name):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                if folder_of(rel, folders) != folder:
                    continue  # a sub-folder that is a layer of its own
                with open(os.path.join(dirpath, name), errors="replace") as src:
                    text = src.read()
                for included in INCLUDE.findall(text):
                    target = folder_of(included, folders)
                    if target is None or target == folder:
                        continue
                    edges.setdefault(folder, set()).add(target)
                    if target not in allowed[folder]:
                        errors.append(f"{rel}: includes {included}, but {folder}/ may not use "
                                      f"{target}/ (its library does not link it)")
    # A cycle among folders, from the includes themselves.
    state = {}

    def visit(f, path):
        state[f] = "open"
        for t in sorted(edges.get(f, ())):
            if state.get(t) == "open":
                cycle = path[path.index(t):] + [t]
                errors.append("include cycle between folders: " + " -> ".join(cycle))
            elif t not in state:
                visit(t, path + [t])
        state[f] = "done"

    for f in sorted(folders):
        if f not in state:
            visit(f, [f])
    for e in errors:
        print(e)
    if not errors:
        print(f"{len(folders)} layers, {sum(len(v) for v in edges.values())} folder edges: ok")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
