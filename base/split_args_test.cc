#include "base/split_args.h"

#include <gtest/gtest.h>

namespace ordis {
namespace {

TEST(SplitArgs, Words) {
  std::vector<std::string> out = {"stale"};
  ASSERT_TRUE(SplitArgs("", &out));
  EXPECT_TRUE(out.empty());
  ASSERT_TRUE(SplitArgs("   \t ", &out));
  EXPECT_TRUE(out.empty());
  ASSERT_TRUE(SplitArgs("a b c", &out));
  EXPECT_EQ(out, (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_TRUE(SplitArgs("  set   key\tvalue  \n", &out));
  EXPECT_EQ(out, (std::vector<std::string>{"set", "key", "value"}));
}

TEST(SplitArgs, Quotes) {
  std::vector<std::string> out;
  ASSERT_TRUE(SplitArgs("\"a b\" c", &out));
  EXPECT_EQ(out, (std::vector<std::string>{"a b", "c"}));
  ASSERT_TRUE(SplitArgs("'a b' c", &out));
  EXPECT_EQ(out, (std::vector<std::string>{"a b", "c"}));
  ASSERT_TRUE(SplitArgs("\"\" ''", &out));
  EXPECT_EQ(out, (std::vector<std::string>{"", ""}));
  // Escapes in double quotes: \n \r \t \b \a, \xHH, \" and any other escaped character.
  ASSERT_TRUE(SplitArgs("\"\\x41\\x62\\n\\r\\t\\b\\a\\\"\\\\\\q\"", &out));
  EXPECT_EQ(out, (std::vector<std::string>{"Ab\n\r\t\b\a\"\\q"}));
  ASSERT_TRUE(SplitArgs("\"\\x00\\xff\"", &out));
  EXPECT_EQ(out, (std::vector<std::string>{std::string("\0\xff", 2)}));
  // An incomplete \x escape is a plain escaped 'x'.
  ASSERT_TRUE(SplitArgs("\"\\x4\"", &out));
  EXPECT_EQ(out, (std::vector<std::string>{"x4"}));
  // In single quotes only \' is an escape.
  ASSERT_TRUE(SplitArgs("'it\\'s \\n'", &out));
  EXPECT_EQ(out, (std::vector<std::string>{"it's \\n"}));
  // A quote inside a bare word opens a quoted part of the same word.
  ASSERT_TRUE(SplitArgs("a\"b c\"", &out));
  EXPECT_EQ(out, (std::vector<std::string>{"ab c"}));
}

TEST(SplitArgs, Unbalanced) {
  std::vector<std::string> out;
  EXPECT_FALSE(SplitArgs("\"abc", &out));
  EXPECT_FALSE(SplitArgs("'abc", &out));
  EXPECT_FALSE(SplitArgs("a \"b", &out));
  // A closing quote must be followed by a space or the end.
  EXPECT_FALSE(SplitArgs("\"abc\"def", &out));
  EXPECT_FALSE(SplitArgs("'abc'def", &out));
  EXPECT_TRUE(SplitArgs("\"abc\" def", &out));
  EXPECT_FALSE(SplitArgs("\"abc\\\"", &out));  // the last quote is escaped
}

TEST(SplitArgs, BlanksAndTokenEnds) {
  std::vector<std::string> out;
  // Blanks between words are isspace(); a word ends only at space, tab, CR or LF (sdssplitargs).
  ASSERT_TRUE(SplitArgs("\v\fa\vb c\f", &out));
  EXPECT_EQ(out, (std::vector<std::string>{"a\vb", "c\f"}));
}

TEST(SplitArgs, IntoReusesStorage) {
  std::vector<std::string> words;
  size_t count = 0;
  ASSERT_TRUE(SplitArgsInto("one two three", &words, &count));
  EXPECT_EQ(count, 3u);
  ASSERT_TRUE(SplitArgsInto("x", &words, &count));
  EXPECT_EQ(count, 1u);
  ASSERT_EQ(words.size(), 3u);  // spare buffers kept for the next line
  EXPECT_EQ(words[0], "x");
  EXPECT_FALSE(SplitArgsInto("'open", &words, &count));
}

}  // namespace
}  // namespace ordis
