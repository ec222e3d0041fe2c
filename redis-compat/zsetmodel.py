"""A plain Python model of one Redis 7.0 sorted set, for the sorted-set modules of the suite.

It answers commands the way Redis 7.0 does in RESP2 (members as bytes, scores as bulk strings printed
with "%.17g", counts as ints), so a test can send a command to the server and to the model and compare
the replies exactly. It is deliberately naive (a dict, sorted on demand): easy to check by reading.

Only the arithmetic the tests need is here; option and argument errors are asserted literally by the
tests, not modelled (except ZADD's NaN result and INCR/XX/NX nil replies, which depend on the state).
"""

import math

from harness import RespError

NAN_ERR = "ERR resulting score is not a number (NaN)"


def fmt_score(x):
    """A score as Redis 7.0 prints it in RESP2: inf, -inf, or "%.17g" (0.1 -> 0.10000000000000001)."""
    if math.isinf(x):
        return b"inf" if x > 0 else b"-inf"
    return (b"%.17g" % x)


def to_bytes(m):
    return m if isinstance(m, bytes) else m.encode()


def parse_score_bound(text):
    """(value, exclusive) for a ZRANGEBYSCORE bound such as "(1.5", "-inf", "+inf", "3"."""
    text = text.decode() if isinstance(text, bytes) else text
    if text.startswith("("):
        return float(text[1:]), True
    return float(text), False


def parse_lex_bound(text):
    """('-'|'+'|'[', member) or ('(', member) for a ZRANGEBYLEX bound."""
    text = to_bytes(text)
    if text in (b"-", b"+"):
        return text.decode(), b""
    return chr(text[0]), text[1:]


def in_score_range(s, lo, hi):
    (mn, mnex), (mx, mxex) = lo, hi
    return (s > mn if mnex else s >= mn) and (s < mx if mxex else s <= mx)


def lex_gte_min(m, bound):
    kind, v = bound
    if kind == "-":
        return True
    if kind == "+":
        return False
    return m > v if kind == "(" else m >= v


def lex_lte_max(m, bound):
    kind, v = bound
    if kind == "+":
        return True
    if kind == "-":
        return False
    return m < v if kind == "(" else m <= v


def rank_slice(n, start, stop):
    """The [first, last) positions Redis's index arithmetic (ZRANGE, ZREMRANGEBYRANK) selects."""
    if start < 0:
        start += n
    if stop < 0:
        stop += n
    start = max(start, 0)
    if start > stop or start >= n:
        return 0, 0
    return start, min(stop, n - 1) + 1


def apply_limit(items, offset, count):
    if offset is None:
        return items
    if offset < 0:
        return []
    items = items[offset:]
    return items if count < 0 else items[:count]


class ZModel:
    """One sorted set: member (bytes) -> score (float)."""

    def __init__(self):
        self.d = {}

    def __len__(self):
        return len(self.d)

    def ordered(self):
        """[(member, score)] in Redis order: by score, then member bytes."""
        return sorted(self.d.items(), key=lambda kv: (kv[1], kv[0]))

    @staticmethod
    def flat(pairs, withscores):
        out = []
        for m, s in pairs:
            out.append(m)
            if withscores:
                out.append(fmt_score(s))
        return out

    # -- writes ------------------------------------------------------------------------------------

    def zadd(self, pairs, nx=False, xx=False, gt=False, lt=False, ch=False, incr=False):
        """pairs: [(score float, member bytes)]. Returns the RESP2 reply."""
        added = updated = processed = 0
        score = None
        for score, m in pairs:
            if m in self.d:
                if nx:
                    continue
                cur = self.d[m]
                new = cur + score if incr else score
                if math.isnan(new):
                    return RespError(NAN_ERR)
                if (lt and new >= cur) or (gt and new <= cur):
                    continue
                processed += 1
                if new != cur:
                    self.d[m] = new
                    updated += 1
                score = new
            else:
                if xx:
                    continue
                self.d[m] = score
                added += 1
                processed += 1
        if incr:
            return fmt_score(score) if processed else None
        return added + updated if ch else added

    def zincrby(self, incr, m):
        return self.zadd([(incr, m)], incr=True)

    def zrem(self, members):
        n = 0
        for m in members:
            if m in self.d:
                del self.d[m]
                n += 1
        return n

    def pop(self, maximum, count=None):
        o = self.ordered()
        if maximum:
            o = o[::-1]
        taken = o[:1 if count is None else count]
        for m, _ in taken:
            del self.d[m]
        return self.flat(taken, True)

    def zremrangebyscore(self, lo, hi):
        return self.zrem([m for m, s in self.ordered() if in_score_range(s, lo, hi)])

    def zremrangebyrank(self, start, stop):
        o = self.ordered()
        a, b = rank_slice(len(o), start, stop)
        return self.zrem([m for m, _ in o[a:b]])

    def zremrangebylex(self, lo, hi):
        return self.zrem(self.lex_members(lo, hi))

    # -- reads -------------------------------------------------------------------------------------

    def zscore(self, m):
        return fmt_score(self.d[m]) if m in self.d else None

    def zmscore(self, members):
        return [self.zscore(m) for m in members]

    def zrank(self, m, rev=False):
        if m not in self.d:
            return None
        o = [x for x, _ in self.ordered()]
        i = o.index(m)
        return len(o) - 1 - i if rev else i

    def zrange(self, start, stop, rev=False, withscores=False):
        o = self.ordered()
        if rev:
            o = o[::-1]
        a, b = rank_slice(len(o), start, stop)
        return self.flat(o[a:b], withscores)

    def by_score(self, lo, hi, rev=False):
        """Pairs with lo <= score <= hi (bounds as from parse_score_bound), ascending or descending."""
        o = [(m, s) for m, s in self.ordered() if in_score_range(s, lo, hi)]
        return o[::-1] if rev else o

    def zrangebyscore(self, lo, hi, rev=False, withscores=False, offset=None, count=None):
        return self.flat(apply_limit(self.by_score(lo, hi, rev), offset, count), withscores)

    def zcount(self, lo, hi):
        return len(self.by_score(lo, hi))

    def lex_members(self, lo, hi, rev=False):
        """Members within lex bounds (the set's scores must all be equal, as Redis requires)."""
        o = [m for m, _ in self.ordered() if lex_gte_min(m, lo) and lex_lte_max(m, hi)]
        return o[::-1] if rev else o

    def zrangebylex(self, lo, hi, rev=False, offset=None, count=None):
        return apply_limit(self.lex_members(lo, hi, rev), offset, count)

    def zlexcount(self, lo, hi):
        return len(self.lex_members(lo, hi))
