#include "base/logging.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <regex>
#include <string>

namespace ordis::log {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class LoggingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "ordis_logging_test_" + std::to_string(getpid()) + ".log";
    std::string error;
    ASSERT_TRUE(SetFile(path_, &error)) << error;
  }
  void TearDown() override {
    std::string error;
    SetFile("", &error);
    SetLevel(Level::kNotice);
    unlink(path_.c_str());
  }
  std::string path_;
};

TEST_F(LoggingTest, LevelChoosesWhatIsWritten) {
  SetLevel(Level::kWarning);
  Notice("not {}", "written");
  Warning("written {}", 1);
  SetLevel(Level::kDebug);
  Debug("debug line");
  const std::string text = ReadAll(path_);
  EXPECT_EQ(text.find("not written"), std::string::npos) << text;
  EXPECT_NE(text.find("written 1"), std::string::npos) << text;
  EXPECT_NE(text.find("debug line"), std::string::npos) << text;
}

TEST_F(LoggingTest, RedisLineFormat) {
  SetLevel(Level::kDebug);
  Debug("d");
  Verbose("v");
  Notice("n");
  Warning("w");
  // pid:M day Mon year HH:MM:SS.mmm <level char> message
  const std::regex line(
      R"((\d+):M \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2}\.\d{3} ([.*#-]) (\w)\n)");
  const std::string text = ReadAll(path_);
  std::string levels, messages;
  for (std::sregex_iterator it(text.begin(), text.end(), line), end; it != end; ++it) {
    EXPECT_EQ((*it)[1], std::to_string(getpid()));
    levels += (*it)[2];
    messages += (*it)[3];
  }
  EXPECT_EQ(levels, ".-*#") << text;
  EXPECT_EQ(messages, "dvnw") << text;
}

TEST(Logging, ParseLevelTakesRedisNames) {
  Level level;
  EXPECT_TRUE(ParseLevel("verbose", &level));
  EXPECT_EQ(level, Level::kVerbose);
  EXPECT_FALSE(ParseLevel("nothing", &level));  // Redis 7.2's, not 7.0's
  EXPECT_FALSE(ParseLevel("loud", &level));
}

TEST(Logging, UnopenableFileIsRefused) {
  std::string error;
  EXPECT_FALSE(SetFile("/nonexistent-ordis-dir/ordis.log", &error));
  EXPECT_FALSE(error.empty());
}

}  // namespace
}  // namespace ordis::log
