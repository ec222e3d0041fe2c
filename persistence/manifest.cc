#include "persistence/manifest.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <string_view>
#include <vector>

#include "persistence/internal/posix_file.h"

namespace ordis::persistence {

using internal::ErrnoText;
using internal::ScopedFd;

namespace {

// Manifests name a handful of files; anything bigger is not one.
constexpr size_t kMaxManifestSize = 1 << 20;

bool ValidName(std::string_view name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find_first_of("/ \n\r\t") == std::string_view::npos &&
         name.find('\0') == std::string_view::npos;
}

constexpr const char* kLineShape = "expected \"file <name> seq <n> type <b|i>\"";

// Parses "file <name> seq <n> type <b|i>", words one space apart; null on success, else the problem.
const char* ParseLine(std::string_view line, Manifest::File* file) {
  std::vector<std::string_view> words;
  for (size_t start = 0;;) {
    const size_t space = line.find(' ', start);
    words.push_back(line.substr(start, space == std::string_view::npos ? space : space - start));
    if (space == std::string_view::npos) break;
    start = space + 1;
  }
  if (words.size() != 6 || words[0] != "file" || words[2] != "seq" || words[4] != "type") {
    return kLineShape;
  }
  if (!ValidName(words[1])) return "invalid file name";
  const std::string_view seq = words[3];
  const auto [end, ec] = std::from_chars(seq.data(), seq.data() + seq.size(), file->seq);
  if (seq.empty() || ec != std::errc() || end != seq.data() + seq.size()) return "invalid seq";
  if (words[5] != "b" && words[5] != "i") return "type must be b or i";
  file->name = std::string(words[1]);
  file->base = words[5] == "b";
  return nullptr;
}

// Null when files can be stored and loaded back as they are; else what is wrong.
const char* CheckFiles(const std::vector<Manifest::File>& files, size_t* bad_index) {
  for (size_t i = 0; i < files.size(); ++i) {
    *bad_index = i;
    const Manifest::File& f = files[i];
    if (!ValidName(f.name)) return "invalid file name";
    if (f.base && i != 0) return "the base must be the first file, and the only base";
    if (!f.base && i > 0 && !files[i - 1].base && files[i - 1].seq >= f.seq) {
      return "incremental logs must have increasing seq";
    }
  }
  return nullptr;
}

}  // namespace

Status Manifest::Load(const std::string& path, Manifest* out, bool* exists) {
  out->files.clear();
  *exists = false;
  ScopedFd fd(internal::OpenFile(path, O_RDONLY));
  if (!fd.valid()) {
    if (errno == ENOENT) return Status::Ok();
    return Status::Error("manifest " + path + ": cannot open: " + ErrnoText(errno));
  }
  *exists = true;
  std::string text(kMaxManifestSize + 1, '\0');
  size_t got = 0;
  if (const int err = internal::ReadFull(fd.get(), text.data(), text.size(), &got); err != 0) {
    return Status::Error("manifest " + path + ": read failed: " + ErrnoText(err));
  }
  if (got > kMaxManifestSize) return Status::Error("manifest " + path + ": larger than 1 MiB");
  text.resize(got);

  std::string_view rest = text;
  for (size_t line_no = 1; !rest.empty(); ++line_no) {
    const size_t newline = rest.find('\n');
    const std::string where = "manifest " + path + ": line " + std::to_string(line_no) + ": ";
    // Store ends every line with a newline: a missing one means a cut file.
    if (newline == std::string_view::npos) return Status::Error(where + "no final newline");
    File file;
    if (const char* problem = ParseLine(rest.substr(0, newline), &file)) {
      return Status::Error(where + problem);
    }
    rest.remove_prefix(newline + 1);
    out->files.push_back(std::move(file));
  }
  size_t bad = 0;
  if (const char* problem = CheckFiles(out->files, &bad)) {
    return Status::Error("manifest " + path + ": line " + std::to_string(bad + 1) + ": " + problem);
  }
  return Status::Ok();
}

Status Manifest::Store(const std::string& path) const {
  size_t bad = 0;
  if (const char* problem = CheckFiles(files, &bad)) {
    return Status::Error("manifest " + path + ": entry " + std::to_string(bad) + " (" +
                         files[bad].name + "): " + problem);
  }
  std::string text;
  for (const File& f : files) {
    text += "file " + f.name + " seq " + std::to_string(f.seq) + " type " + (f.base ? "b" : "i") +
            "\n";
  }
  const std::string tmp = path + ".tmp";
  auto fail = [&](const std::string& what, int err) {
    ::unlink(tmp.c_str());
    return Status::Error("manifest " + path + ": " + what + ": " + ErrnoText(err));
  };
  ScopedFd fd(internal::OpenFile(tmp, O_WRONLY | O_CREAT | O_TRUNC));
  if (!fd.valid()) return fail("cannot create " + tmp, errno);
  size_t written = 0;
  if (const int err = internal::WriteAll(fd.get(), text.data(), text.size(), &written); err != 0) {
    return fail("write to " + tmp + " failed", err);
  }
  if (const int err = internal::SyncAll(fd.get()); err != 0) return fail("fsync of " + tmp, err);
  if (const int err = fd.Close(); err != 0) return fail("close of " + tmp, err);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail("rename from " + tmp, errno);
  return SyncDirectory(internal::DirName(path));
}

Status EnsureDirectory(const std::string& dir) {
  // Each prefix ending before a '/', then dir itself.
  for (size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
    const std::string prefix = dir.substr(0, slash);
    if (!prefix.empty() && ::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      return Status::Error("cannot create directory " + prefix + ": " + ErrnoText(errno));
    }
    if (slash == std::string::npos) break;
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) {
    return Status::Error("cannot stat directory " + dir + ": " + ErrnoText(errno));
  }
  if (!S_ISDIR(st.st_mode)) return Status::Error(dir + " exists and is not a directory");
  return Status::Ok();
}

Status SyncDirectory(const std::string& dir) {
  if (const int err = internal::SyncDir(dir); err != 0) {
    return Status::Error("fsync of directory " + dir + " failed: " + ErrnoText(err));
  }
  return Status::Ok();
}

}  // namespace ordis::persistence
