#!/usr/bin/env python3
"""Generates server/commands/command_docs_data.inc, COMMAND DOCS's facts, from a redis-server.

Usage:
    redis-server --port 7785 --save '' --dir /tmp &
    python3 scripts/gen_command_docs.py --port 7785 > server/commands/command_docs_data.inc
    redis-cli -p 7785 shutdown nosave

It reads the server's COMMAND DOCS (RESP3, over a plain socket: no client library needed) and writes,
for every command and subcommand, the facts of its interface: `since`, `doc_flags`,
`deprecated_since`, `replaced_by` and the `arguments` tree (name, type, key_spec_index, token,
since, deprecated_since, flags, nested arguments). Redis's prose (summary, complexity, history) is
not carried over: ordis's summaries live in its command table, and complexity describes Redis's
implementation, not ordis's. Commands ordis has that Redis 7.0 lacks are written from ORDIS_ONLY
below. Run it against redis-server 7.0.x: the compat test (redis-compat/test_command_docs.py)
compares ordis's replies with that version's.
"""
import argparse
import socket
import sys

# Commands Redis 7.0 lacks, in COMMAND DOCS's shape. KRANGE and KCOUNT are ordis's (since: the
# ordis version that added them); CLIENT SETINFO and NO-TOUCH are Redis 7.2's, as 7.2 documents them.
ORDIS_ONLY = {
    "krange": {
        "since": "0.1.0",
        "arguments": [
            {"name": "min", "type": "string"},
            {"name": "max", "type": "string"},
            {"name": "rev", "type": "pure-token", "token": "REV", "flags": ["optional"]},
            {"name": "limit", "type": "block", "token": "LIMIT", "flags": ["optional"],
             "arguments": [{"name": "offset", "type": "integer"},
                           {"name": "count", "type": "integer"}]},
            {"name": "withvalues", "type": "pure-token", "token": "WITHVALUES",
             "flags": ["optional"]},
        ],
    },
    "kcount": {
        "since": "0.1.0",
        "arguments": [{"name": "min", "type": "string"}, {"name": "max", "type": "string"}],
    },
    "client|setinfo": {
        "since": "7.2.0",
        "arguments": [
            {"name": "attr", "type": "oneof",
             "arguments": [{"name": "libname", "type": "string", "token": "LIB-NAME"},
                           {"name": "libver", "type": "string", "token": "LIB-VER"}]},
        ],
    },
    "client|no-touch": {
        "since": "7.2.0",
        "arguments": [
            {"name": "enabled", "type": "oneof",
             "arguments": [{"name": "on", "type": "pure-token", "token": "ON"},
                           {"name": "off", "type": "pure-token", "token": "OFF"}]},
        ],
    },
}

ARG_TYPES = {
    "string": "kString", "integer": "kInteger", "double": "kDouble", "key": "kKey",
    "pattern": "kPattern", "unix-time": "kUnixTime", "pure-token": "kPureToken",
    "oneof": "kOneof", "block": "kBlock",
}
ARG_FLAGS = {"optional": "kOptional", "multiple": "kMultiple", "multiple_token": "kMultipleToken"}
DOC_FLAGS = {"deprecated": "kDeprecated", "syscmd": "kSyscmd"}
ARG_FIELDS = {"name", "type", "key_spec_index", "token", "since", "deprecated_since", "flags",
              "arguments"}
DOC_FIELDS = {"summary", "since", "group", "complexity", "doc_flags", "deprecated_since",
              "replaced_by", "history", "arguments", "subcommands"}


class Resp3:
    """Just enough RESP3 to read COMMAND DOCS: maps become lists of pairs, keeping their order."""

    def __init__(self, sock):
        self.file = sock.makefile("rb")

    def read(self):
        line = self.file.readline()
        if not line.endswith(b"\r\n"):
            raise EOFError("connection closed")
        kind, rest = line[:1], line[1:-2]
        if kind in (b"+", b"-"):
            if kind == b"-":
                raise RuntimeError(rest.decode())
            return rest.decode()
        if kind == b":":
            return int(rest)
        if kind == b"$":
            data = self.file.read(int(rest) + 2)
            return data[:-2].decode()
        if kind in (b"*", b"~"):
            return [self.read() for _ in range(int(rest))]
        if kind == b"%":
            return [(self.read(), self.read()) for _ in range(int(rest))]
        if kind == b"_":
            return None
        raise RuntimeError("unexpected reply type %r" % kind)


def command(sock, reader, *args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a.encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    sock.sendall(out)
    return reader.read()


def to_dict(pairs, known, where):
    d = dict(pairs)
    unknown = set(d) - known
    if unknown:
        raise RuntimeError("%s: fields this generator does not know: %s" % (where, sorted(unknown)))
    return d


def normalise_args(args, where):
    out = []
    for a in args:
        a = to_dict(a, ARG_FIELDS, where)
        if "arguments" in a:
            a["arguments"] = normalise_args(a["arguments"], where)
        out.append(a)
    return out


def collect(name, pairs, docs):
    d = to_dict(pairs, DOC_FIELDS, name)
    docs[name] = {
        "since": d.get("since"),
        "doc_flags": d.get("doc_flags", []),
        "deprecated_since": d.get("deprecated_since"),
        "replaced_by": d.get("replaced_by"),
        "arguments": normalise_args(d.get("arguments", []), name),
    }
    for sub_name, sub_pairs in d.get("subcommands", []):
        collect(sub_name, sub_pairs, docs)


def c_string(s):
    if s is None:
        return "nullptr"
    out = '"'
    for ch in s:
        if ch in '"\\':
            out += "\\" + ch
        elif " " <= ch <= "~":
            out += ch
        else:
            raise RuntimeError("unexpected character %r in %r" % (ch, s))
    return out + '"'


def bits(names, table):
    if not names:
        return "0"
    return " | ".join(table[n] for n in names)


def identifier(name):
    return "k" + "".join(p.capitalize() for p in name.replace("|", "_").replace("-", "_").split("_"))


def emit_args(args, depth, lines):
    for a in args:
        ksi = a.get("key_spec_index", -1)
        lines.append("    {%d, %s, ArgType::%s, %d, %s, %s, %s, %s}," % (
            depth, c_string(a["name"]), ARG_TYPES[a["type"]], ksi, c_string(a.get("token")),
            c_string(a.get("since")), c_string(a.get("deprecated_since")),
            bits(a.get("flags"), ARG_FLAGS)))
        emit_args(a.get("arguments", []), depth + 1, lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=6379)
    opts = parser.parse_args()
    sock = socket.create_connection((opts.host, opts.port))
    reader = Resp3(sock)
    hello = dict(command(sock, reader, "HELLO", "3"))
    version = hello.get("version", "?")
    docs = {}
    for name, pairs in command(sock, reader, "COMMAND", "DOCS"):
        collect(name, pairs, docs)
    sock.close()
    for name, d in ORDIS_ONLY.items():
        if name in docs:
            raise RuntimeError("%s: Redis documents it now; drop it from ORDIS_ONLY" % name)
        docs[name] = {"since": d["since"], "doc_flags": [], "deprecated_since": None,
                      "replaced_by": None, "arguments": d["arguments"]}

    out = []
    out.append("// Generated by scripts/gen_command_docs.py from redis-server %s's COMMAND DOCS "
               "(and" % version)
    out.append("// the script's ORDIS_ONLY entries): do not edit. To regenerate, against a "
               "redis-server 7.0.x:")
    out.append("//   python3 scripts/gen_command_docs.py --port <port> > "
               "server/commands/command_docs_data.inc")
    out.append("// Each command's arguments are listed in pre-order with their depth: an entry's "
               "nested")
    out.append("// arguments (a block's or a oneof's) are the deeper entries right after it.")
    out.append("// Fields: depth, name, type, key_spec_index (-1: none), token, since, "
               "deprecated_since, flags.")
    out.append("// clang-format off")
    names = sorted(docs)
    ids = [identifier(n) for n in names]
    if len(set(ids)) != len(ids):
        raise RuntimeError("two commands map to one C++ identifier")
    for name in names:
        args = docs[name]["arguments"]
        if not args:
            continue
        out.append("constexpr DocArg %sArgs[] = {" % identifier(name))
        emit_args(args, 0, out)
        out.append("};")
    out.append("")
    out.append("// Fields: name, since, doc_flags, deprecated_since, replaced_by, arguments.")
    out.append("constexpr CommandDoc kCommandDocs[] = {")
    for name in names:
        d = docs[name]
        args = "%sArgs" % identifier(name) if d["arguments"] else "{}"
        out.append("    {%s, %s, %s, %s, %s, %s}," % (
            c_string(name), c_string(d["since"]), bits(d["doc_flags"], DOC_FLAGS),
            c_string(d["deprecated_since"]), c_string(d["replaced_by"]), args))
    out.append("};")
    out.append("// clang-format on")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
