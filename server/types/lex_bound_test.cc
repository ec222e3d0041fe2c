#include "server/types/lex_bound.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ordis::server {
namespace {

using namespace std::literals;

TEST(LexBound, ParsesTheFourForms) {
  LexBound b;
  ASSERT_TRUE(ParseLexBound("-", &b));
  EXPECT_EQ(b.kind, LexBound::kMinusInf);
  ASSERT_TRUE(ParseLexBound("+", &b));
  EXPECT_EQ(b.kind, LexBound::kPlusInf);
  ASSERT_TRUE(ParseLexBound("[abc", &b));
  EXPECT_EQ(b.kind, LexBound::kInclusive);
  EXPECT_EQ(b.key, "abc");
  ASSERT_TRUE(ParseLexBound("(abc", &b));
  EXPECT_EQ(b.kind, LexBound::kExclusive);
  EXPECT_EQ(b.key, "abc");
  // The empty key, and binary keys.
  ASSERT_TRUE(ParseLexBound("[", &b));
  EXPECT_EQ(b.kind, LexBound::kInclusive);
  EXPECT_EQ(b.key, "");
  ASSERT_TRUE(ParseLexBound("(", &b));
  EXPECT_EQ(b.kind, LexBound::kExclusive);
  EXPECT_EQ(b.key, "");
  ASSERT_TRUE(ParseLexBound("[a\0\xff"sv, &b));
  EXPECT_EQ(b.key, "a\0\xff"sv);
  // Only the first character is syntax.
  ASSERT_TRUE(ParseLexBound("[[", &b));
  EXPECT_EQ(b.key, "[");
  ASSERT_TRUE(ParseLexBound("(-", &b));
  EXPECT_EQ(b.key, "-");
}

TEST(LexBound, KeyIsAViewIntoTheArgument) {
  std::string arg = "[hello";
  LexBound b;
  ASSERT_TRUE(ParseLexBound(arg, &b));
  EXPECT_EQ(b.key.data(), arg.data() + 1);
}

TEST(LexBound, RejectsEverythingElse) {
  LexBound b;
  for (std::string_view s : {""sv, "a"sv, "abc"sv, "--"sv, "++"sv, "-a"sv, "+a"sv, " [a"sv, "]a"sv,
                             ")a"sv, "\0"sv, "{a"sv}) {
    EXPECT_FALSE(ParseLexBound(s, &b)) << "'" << s << "'";
  }
}

TEST(LexBound, AllowsAsMinAndMax) {
  LexBound b;
  ASSERT_TRUE(ParseLexBound("-", &b));
  EXPECT_TRUE(b.AllowsAsMin(""));
  EXPECT_TRUE(b.AllowsAsMin("\xff\xff"));
  EXPECT_FALSE(b.AllowsAsMax(""));
  EXPECT_FALSE(b.AllowsAsMax("zzz"));

  ASSERT_TRUE(ParseLexBound("+", &b));
  EXPECT_FALSE(b.AllowsAsMin(""));
  EXPECT_FALSE(b.AllowsAsMin("\xff"));
  EXPECT_TRUE(b.AllowsAsMax(""));
  EXPECT_TRUE(b.AllowsAsMax("\xff\xff"));

  ASSERT_TRUE(ParseLexBound("[b", &b));
  EXPECT_FALSE(b.AllowsAsMin("a"));
  EXPECT_TRUE(b.AllowsAsMin("b"));
  EXPECT_TRUE(b.AllowsAsMin("b\0"sv));
  EXPECT_TRUE(b.AllowsAsMin("c"));
  EXPECT_TRUE(b.AllowsAsMax("a"));
  EXPECT_TRUE(b.AllowsAsMax("b"));
  EXPECT_FALSE(b.AllowsAsMax("b\0"sv));
  EXPECT_FALSE(b.AllowsAsMax("c"));

  ASSERT_TRUE(ParseLexBound("(b", &b));
  EXPECT_FALSE(b.AllowsAsMin("a"));
  EXPECT_FALSE(b.AllowsAsMin("b"));
  EXPECT_TRUE(b.AllowsAsMin("b\0"sv));
  EXPECT_TRUE(b.AllowsAsMax("a"));
  EXPECT_FALSE(b.AllowsAsMax("b"));
  EXPECT_TRUE(b.AllowsAsMax("a\xff"));
}

// Comparisons are by unsigned bytes, as memcmp and the index order keys.
TEST(LexBound, ComparesBytesUnsigned) {
  LexBound b;
  ASSERT_TRUE(ParseLexBound("[\x7f", &b));
  EXPECT_TRUE(b.AllowsAsMin("\x80"));
  EXPECT_TRUE(b.AllowsAsMin("\xff"));
  EXPECT_FALSE(b.AllowsAsMin("\x01"));
  ASSERT_TRUE(ParseLexBound("(\x80", &b));
  EXPECT_TRUE(b.AllowsAsMax("\x7f"));
  EXPECT_FALSE(b.AllowsAsMax("\xff"));
}

// "[" (the empty key, inclusive) admits everything as a minimum; "(" admits everything but "".
TEST(LexBound, EmptyKeyBounds) {
  LexBound b;
  ASSERT_TRUE(ParseLexBound("[", &b));
  EXPECT_TRUE(b.AllowsAsMin(""));
  EXPECT_TRUE(b.AllowsAsMin("a"));
  EXPECT_TRUE(b.AllowsAsMax(""));
  EXPECT_FALSE(b.AllowsAsMax("a"));
  ASSERT_TRUE(ParseLexBound("(", &b));
  EXPECT_FALSE(b.AllowsAsMin(""));
  EXPECT_TRUE(b.AllowsAsMin("\0"sv));
  EXPECT_FALSE(b.AllowsAsMax(""));
}

}  // namespace
}  // namespace ordis::server
