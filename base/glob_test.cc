#include "base/glob.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace ordis {
namespace {

using namespace std::string_literals;

TEST(Glob, Literals) {
  EXPECT_TRUE(GlobMatch("hello", "hello"));
  EXPECT_FALSE(GlobMatch("hello", "hell"));
  EXPECT_FALSE(GlobMatch("hello", "helloo"));
  EXPECT_FALSE(GlobMatch("hello", "Hello"));
  EXPECT_TRUE(GlobMatch("", ""));
  EXPECT_FALSE(GlobMatch("", "a"));
  EXPECT_FALSE(GlobMatch("a", ""));
}

TEST(Glob, Star) {
  EXPECT_TRUE(GlobMatch("*", "anything"));
  EXPECT_TRUE(GlobMatch("*", "x"));
  // A lone "*" matches everything including the empty string (KEYS * returns the empty key).
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("h*llo", "hllo"));
  EXPECT_TRUE(GlobMatch("h*llo", "heeeello"));
  EXPECT_FALSE(GlobMatch("h*llo", "heeeellox"));
  EXPECT_TRUE(GlobMatch("user:*", "user:"));
  EXPECT_TRUE(GlobMatch("user:*", "user:42"));
  EXPECT_FALSE(GlobMatch("user:*", "user"));
  EXPECT_TRUE(GlobMatch("*:*", "a:b"));
  EXPECT_TRUE(GlobMatch("*:*", ":"));
  EXPECT_FALSE(GlobMatch("*:*", "ab"));
  EXPECT_TRUE(GlobMatch("**", "abc"));
  EXPECT_TRUE(GlobMatch("a**b", "ab"));
  EXPECT_TRUE(GlobMatch("a*b*c", "aXbYc"));
  EXPECT_FALSE(GlobMatch("a*b*c", "aXbY"));
  EXPECT_TRUE(GlobMatch("*a", "aaa"));
  EXPECT_FALSE(GlobMatch("*a", "aab"));
  // "x*" against "x": trailing stars match the empty rest.
  EXPECT_TRUE(GlobMatch("x*", "x"));
  EXPECT_TRUE(GlobMatch("x***", "x"));
  // As Redis: only the lone "*" short-cut matches the empty string; "**" does not.
  EXPECT_FALSE(GlobMatch("**", ""));
  EXPECT_FALSE(GlobMatch("?*", ""));
}

TEST(Glob, QuestionMark) {
  EXPECT_TRUE(GlobMatch("h?llo", "hello"));
  EXPECT_TRUE(GlobMatch("h?llo", "hallo"));
  EXPECT_FALSE(GlobMatch("h?llo", "hllo"));
  EXPECT_FALSE(GlobMatch("h?llo", "heello"));
  EXPECT_TRUE(GlobMatch("???", "abc"));
  EXPECT_FALSE(GlobMatch("???", "ab"));
  EXPECT_TRUE(GlobMatch("?", "\0"s));
  EXPECT_TRUE(GlobMatch("?", "\xff"s));
}

TEST(Glob, Classes) {
  EXPECT_TRUE(GlobMatch("h[ae]llo", "hello"));
  EXPECT_TRUE(GlobMatch("h[ae]llo", "hallo"));
  EXPECT_FALSE(GlobMatch("h[ae]llo", "hillo"));
  EXPECT_FALSE(GlobMatch("h[ae]llo", "hllo"));
  // Negation.
  EXPECT_TRUE(GlobMatch("h[^e]llo", "hallo"));
  EXPECT_FALSE(GlobMatch("h[^e]llo", "hello"));
  // Ranges, including reversed ones.
  EXPECT_TRUE(GlobMatch("h[a-b]llo", "hbllo"));
  EXPECT_FALSE(GlobMatch("h[a-b]llo", "hcllo"));
  EXPECT_TRUE(GlobMatch("[z-a]", "m"));
  EXPECT_TRUE(GlobMatch("[z-a]", "a"));
  EXPECT_TRUE(GlobMatch("[z-a]", "z"));
  EXPECT_FALSE(GlobMatch("[z-a]", "A"));
  EXPECT_TRUE(GlobMatch("[0-9][0-9]", "42"));
  EXPECT_FALSE(GlobMatch("[0-9][0-9]", "4x"));
  EXPECT_TRUE(GlobMatch("[^0-9]", "x"));
  EXPECT_FALSE(GlobMatch("[^0-9]", "5"));
  // As Redis: "c-]" is read as a range up to ']' (0x5d..0x63 once swapped), which swallows the
  // closing bracket: "-" does not match, "^" (0x5e) does.
  EXPECT_FALSE(GlobMatch("[abc-]", "-"));
  EXPECT_TRUE(GlobMatch("[abc-]", "^"));
  // Several items in one class.
  EXPECT_TRUE(GlobMatch("[a-cx-z_]", "y"));
  EXPECT_TRUE(GlobMatch("[a-cx-z_]", "_"));
  EXPECT_FALSE(GlobMatch("[a-cx-z_]", "m"));
  // A class consumes exactly one character.
  EXPECT_FALSE(GlobMatch("[ab]", "ab"));
  EXPECT_FALSE(GlobMatch("[ab]", ""));
  // "[]" is an empty class that matches nothing; "[^]" matches any one character.
  EXPECT_FALSE(GlobMatch("[]", "a"));
  EXPECT_TRUE(GlobMatch("[^]", "a"));
  // An unterminated class runs to the end of the pattern.
  EXPECT_TRUE(GlobMatch("[abc", "b"));
  EXPECT_FALSE(GlobMatch("[abc", "d"));
  EXPECT_FALSE(GlobMatch("[", "["));
  EXPECT_FALSE(GlobMatch("[", ""));
  // Escapes inside a class.
  EXPECT_TRUE(GlobMatch("[\\]]", "]"));
  EXPECT_TRUE(GlobMatch("[\\-]", "-"));
  EXPECT_TRUE(GlobMatch("[a\\-z]", "-"));
  EXPECT_FALSE(GlobMatch("[a\\-z]", "m"));
  EXPECT_TRUE(GlobMatch("[\\^]", "^"));
  // Binary bytes.
  EXPECT_TRUE(GlobMatch("[\x01-\x03]"s, "\x02"s));
  EXPECT_TRUE(GlobMatch("a[\0]b"s, "a\0b"s));
}

TEST(Glob, Escapes) {
  EXPECT_TRUE(GlobMatch("\\*", "*"));
  EXPECT_FALSE(GlobMatch("\\*", "a"));
  EXPECT_TRUE(GlobMatch("\\?", "?"));
  EXPECT_FALSE(GlobMatch("\\?", "a"));
  EXPECT_TRUE(GlobMatch("\\[a]", "[a]"));
  EXPECT_FALSE(GlobMatch("\\[a]", "a"));
  EXPECT_TRUE(GlobMatch("a\\\\b", "a\\b"));
  EXPECT_TRUE(GlobMatch("\\a", "a"));
  // A trailing backslash matches itself.
  EXPECT_TRUE(GlobMatch("a\\", "a\\"));
  EXPECT_FALSE(GlobMatch("a\\", "a"));
  EXPECT_TRUE(GlobMatch("user\\*:*", "user*:1"));
  EXPECT_FALSE(GlobMatch("user\\*:*", "userX:1"));
}

TEST(Glob, BinarySafe) {
  EXPECT_TRUE(GlobMatch("a\0*"s, "a\0xyz"s));
  EXPECT_FALSE(GlobMatch("a\0*"s, "a"s));
  EXPECT_FALSE(GlobMatch("a"s, "a\0"s));
  EXPECT_TRUE(GlobMatch("*\xff"s, "abc\xff"s));
  EXPECT_TRUE(GlobMatch("*"s, "\0\0"s));
}

TEST(Glob, NoCase) {
  EXPECT_TRUE(GlobMatch("HeLLo", "hello", /*nocase=*/true));
  EXPECT_FALSE(GlobMatch("HeLLo", "hello", /*nocase=*/false));
  EXPECT_TRUE(GlobMatch("MAX*", "maxclients", true));
  EXPECT_TRUE(GlobMatch("[A-C]x", "bX", true));
  EXPECT_TRUE(GlobMatch("[ABC]", "b", true));
  EXPECT_TRUE(GlobMatch("[^ABC]", "d", true));
  EXPECT_FALSE(GlobMatch("[^ABC]", "b", true));
}

// Redis bounds recursion and short-cuts patterns with many stars, so these finish at once.
TEST(Glob, PathologicalPatternsTerminate) {
  std::string many_stars;
  for (int i = 0; i < 40; ++i) many_stars += "a*";
  many_stars += "b";
  EXPECT_FALSE(GlobMatch(many_stars, std::string(100, 'a')));
  std::string deep(5000, '*');
  deep = "a" + deep;
  for (int i = 0; i < 1500; ++i) deep += "?*";
  EXPECT_FALSE(GlobMatch(deep, std::string(100, 'a')));
  // Deeper than the nesting bound: Redis gives up and reports no match, though one exists.
  EXPECT_FALSE(GlobMatch(deep, std::string(3000, 'a')));
}

// A simple exponential reference matcher for the subset "*", "?", literals; compared on random
// strings over a small alphabet.
bool ReferenceMatch(std::string_view p, std::string_view s) {
  if (p.empty()) return s.empty();
  if (p[0] == '*') {
    for (size_t i = 0; i <= s.size(); ++i) {
      if (ReferenceMatch(p.substr(1), s.substr(i))) return true;
    }
    return false;
  }
  if (s.empty()) return false;
  if (p[0] == '?' || p[0] == s[0]) return ReferenceMatch(p.substr(1), s.substr(1));
  return false;
}

TEST(Glob, StarsAndQuestionMarksMatchReference) {
  std::mt19937 rng(7);
  const char kPatternChars[] = {'a', 'b', '*', '?'};
  const char kStringChars[] = {'a', 'b'};
  for (int n = 0; n < 50000; ++n) {
    std::string p, s;
    int plen = static_cast<int>(rng() % 7), slen = static_cast<int>(rng() % 8);
    for (int i = 0; i < plen; ++i) p += kPatternChars[rng() % 4];
    for (int i = 0; i < slen; ++i) s += kStringChars[rng() % 2];
    // Redis quirk: only the lone "*" matches the empty string; any other pattern needs a
    // non-empty string unless the pattern is empty too.
    bool want = p == "*" ? true : s.empty() ? p.empty() : ReferenceMatch(p, s);
    ASSERT_EQ(GlobMatch(p, s), want) << "pattern '" << p << "' string '" << s << "'";
  }
}

TEST(Glob, LiteralPrefix) {
  EXPECT_EQ(GlobLiteralPrefix("user:*"), "user:");
  EXPECT_EQ(GlobLiteralPrefix("user:?x"), "user:");
  EXPECT_EQ(GlobLiteralPrefix("user:[ab]"), "user:");
  EXPECT_EQ(GlobLiteralPrefix("user\\*"), "user");
  EXPECT_EQ(GlobLiteralPrefix("*"), "");
  EXPECT_EQ(GlobLiteralPrefix(""), "");
  EXPECT_EQ(GlobLiteralPrefix("plain"), "plain");
  EXPECT_EQ(GlobLiteralPrefix("a\0b*"s), "a\0b"s);
}

// The contract: every string the pattern matches starts with its literal prefix.
TEST(Glob, LiteralPrefixIsAPrefixOfEveryMatch) {
  std::mt19937 rng(11);
  const char kPatternChars[] = {'a', 'b', '*', '?', '[', ']', '\\', '^', '-'};
  const char kStringChars[] = {'a', 'b', '[', ']', '\\', '*', '?', '-', '^'};
  for (int n = 0; n < 100000; ++n) {
    std::string p, s;
    int plen = static_cast<int>(rng() % 6), slen = static_cast<int>(rng() % 6);
    for (int i = 0; i < plen; ++i) p += kPatternChars[rng() % std::size(kPatternChars)];
    for (int i = 0; i < slen; ++i) s += kStringChars[rng() % std::size(kStringChars)];
    if (!GlobMatch(p, s)) continue;
    std::string_view prefix = GlobLiteralPrefix(p);
    ASSERT_EQ(std::string_view(s).substr(0, prefix.size()), prefix)
        << "pattern '" << p << "' matched '" << s << "'";
  }
}

}  // namespace
}  // namespace ordis
