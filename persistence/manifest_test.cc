#include "persistence/manifest.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>
#include <tuple>
#include <vector>

#include "persistence/scratch_dir_test_support.h"

namespace ordis::persistence {
namespace {

// Comparable rows: (name, seq, base) per file.
std::vector<std::tuple<std::string, uint64_t, bool>> Rows(
    const std::vector<Manifest::File>& files) {
  std::vector<std::tuple<std::string, uint64_t, bool>> rows;
  for (const Manifest::File& f : files) rows.emplace_back(f.name, f.seq, f.base);
  return rows;
}

Manifest Sample() {
  Manifest m;
  m.files = {{"appendonly.aof.3.base.osnap", 3, true},
             {"appendonly.aof.4.incr.aof", 4, false},
             {"appendonly.aof.5.incr.aof", 5, false},
             {"appendonly.aof.18446744073709551615.incr.aof", UINT64_MAX, false}};
  return m;
}

TEST(Manifest, StoreLoadRoundTrip) {
  ScratchDir dir;
  const std::string path = dir.File("appendonly.aof.manifest");
  const Manifest stored = Sample();
  ASSERT_TRUE(stored.Store(path).ok());
  EXPECT_EQ(ReadWholeFile(path),
            "file appendonly.aof.3.base.osnap seq 3 type b\n"
            "file appendonly.aof.4.incr.aof seq 4 type i\n"
            "file appendonly.aof.5.incr.aof seq 5 type i\n"
            "file appendonly.aof.18446744073709551615.incr.aof seq 18446744073709551615 type i\n");
  Manifest loaded;
  bool exists = false;
  const Status s = Manifest::Load(path, &loaded, &exists);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(exists);
  EXPECT_EQ(Rows(loaded.files), Rows(stored.files));
}

TEST(Manifest, EmptyAndBaselessManifestsRoundTrip) {
  ScratchDir dir;
  const std::string path = dir.File("m");
  for (Manifest m : {Manifest{}, Manifest{{{"only.incr.aof", 1, false}}},
                     Manifest{{{"only.base.osnap", 1, true}}}}) {
    ASSERT_TRUE(m.Store(path).ok());
    Manifest loaded;
    bool exists = false;
    ASSERT_TRUE(Manifest::Load(path, &loaded, &exists).ok());
    EXPECT_TRUE(exists);
    EXPECT_EQ(Rows(loaded.files), Rows(m.files));
  }
}

TEST(Manifest, MissingFileDoesNotExist) {
  ScratchDir dir;
  Manifest loaded = Sample();
  bool exists = true;
  const Status s = Manifest::Load(dir.File("appendonly.aof.manifest"), &loaded, &exists);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(exists);
  EXPECT_TRUE(loaded.files.empty());
}

TEST(Manifest, MalformedLinesAreErrors) {
  ScratchDir dir;
  const std::string path = dir.File("appendonly.aof.manifest");
  const std::string good = "file a.base seq 1 type b\n";
  struct Case {
    std::string text;
    int bad_line;
  };
  const Case cases[] = {
      {"garbage\n", 1},
      {good + "file b seq 2 type x\n", 2},
      {good + "file b seq -2 type i\n", 2},
      {good + "file b seq 2x type i\n", 2},
      {good + "file b seq  type i\n", 2},
      {good + "file b seq 99999999999999999999999 type i\n", 2},
      {good + "file a/b seq 2 type i\n", 2},
      {good + "file .. seq 2 type i\n", 2},
      {good + "file b  seq 2 type i\n", 2},
      {good + "file b seq 2 type i extra\n", 2},
      {good + "file b seq 2 type i \n", 2},
      {good + "file b seq 2 type i\r\n", 2},
      {good + "\n", 2},
      {good + "file b seq 2 type i", 2},  // cut: no final newline
      {good + "seq 2 file b type i\n", 2},
      {good + "file b seq 2 type b\n", 2},                       // a second base
      {"file b seq 2 type i\n" + good, 2},                       // base not first
      {good + "file b seq 5 type i\nfile c seq 5 type i\n", 3},  // seq not increasing
      {std::string("file a\0b seq 1 type b\n", 22), 1},
  };
  for (const Case& c : cases) {
    WriteWholeFile(path, c.text);
    Manifest loaded;
    bool exists = false;
    const Status s = Manifest::Load(path, &loaded, &exists);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_TRUE(exists);
    EXPECT_NE(s.message().find(path), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("line " + std::to_string(c.bad_line) + ":"), std::string::npos)
        << c.text << " -> " << s.message();
  }
}

TEST(Manifest, StoreRefusesWhatLoadCouldNotRead) {
  ScratchDir dir;
  const std::string path = dir.File("m");
  for (Manifest m : {Manifest{{{"a b", 1, true}}}, Manifest{{{"x/y", 1, true}}},
                     Manifest{{{"", 1, true}}}, Manifest{{{"i", 1, false}, {"b", 2, true}}},
                     Manifest{{{"i", 2, false}, {"j", 1, false}}}}) {
    EXPECT_FALSE(m.Store(path).ok());
    EXPECT_FALSE(FileExists(path));
    EXPECT_FALSE(FileExists(path + ".tmp"));
  }
}

TEST(Manifest, StoreReplacesAtomicallyAndLeavesNoTemporaryFile) {
  ScratchDir dir;
  const std::string path = dir.File("appendonly.aof.manifest");
  ASSERT_TRUE(Sample().Store(path).ok());
  Manifest next;
  next.files = {{"appendonly.aof.6.base.osnap", 6, true}, {"appendonly.aof.7.incr.aof", 7, false}};
  ASSERT_TRUE(next.Store(path).ok());
  EXPECT_FALSE(FileExists(path + ".tmp"));
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    names.push_back(entry.path().filename().string());
  }
  EXPECT_EQ(names, std::vector<std::string>{"appendonly.aof.manifest"});
  Manifest loaded;
  bool exists = false;
  ASSERT_TRUE(Manifest::Load(path, &loaded, &exists).ok());
  EXPECT_EQ(Rows(loaded.files), Rows(next.files));
}

TEST(Manifest, StoreFailsInAMissingDirectory) {
  ScratchDir dir;
  const Status s = Sample().Store(dir.File("missing/appendonly.aof.manifest"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("missing/appendonly.aof.manifest"), std::string::npos) << s.message();
}

TEST(Directory, EnsureDirectoryCreatesParents) {
  ScratchDir dir;
  const std::string nested = dir.File("a/b/c");
  ASSERT_TRUE(EnsureDirectory(nested).ok());
  EXPECT_TRUE(std::filesystem::is_directory(nested));
  EXPECT_TRUE(EnsureDirectory(nested).ok());        // already there
  EXPECT_TRUE(EnsureDirectory(nested + "/").ok());  // trailing slash
  EXPECT_TRUE(SyncDirectory(nested).ok());

  WriteWholeFile(dir.File("file"), "x");
  EXPECT_FALSE(EnsureDirectory(dir.File("file")).ok());
  EXPECT_FALSE(EnsureDirectory(dir.File("file/sub")).ok());
  EXPECT_FALSE(SyncDirectory(dir.File("none")).ok());
}

}  // namespace
}  // namespace ordis::persistence
