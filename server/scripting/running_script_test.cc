#include "server/scripting/running_script.h"

#include <gtest/gtest.h>

namespace ordis::server::scripting {
namespace {

using Kill = RunningScript::KillResult;

TEST(RunningScript, KillAnswersAsRedis) {
  RunningScript eval;
  EXPECT_EQ(eval.Kill(/*function=*/false), Kill::kNotRunning);
  eval.Begin(NowMs());
  EXPECT_EQ(eval.Kill(/*function=*/true), Kill::kOtherKind);  // FUNCTION KILL of an EVAL
  EXPECT_FALSE(eval.kill_requested());
  EXPECT_EQ(eval.Kill(/*function=*/false), Kill::kKilled);
  EXPECT_TRUE(eval.kill_requested());
  eval.End();

  // Once the script wrote, neither kill command stops it: its writes are checked first.
  for (const bool function : {false, true}) {
    RunningScript script;
    if (function) {
      script.Begin(NowMs(), "f");
    } else {
      script.Begin(NowMs());
    }
    script.NoteWrite();
    EXPECT_EQ(script.Kill(/*function=*/false), Kill::kUnkillable) << function;
    EXPECT_EQ(script.Kill(/*function=*/true), Kill::kUnkillable) << function;
    EXPECT_FALSE(script.kill_requested());
    script.End();
  }
}

}  // namespace
}  // namespace ordis::server::scripting
