// Redis's sdssplitargs: splits a line into words, honouring double quotes (with \n \r \t \b \a
// \xHH escapes) and single quotes (with \'). Used for inline commands and configuration lines.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ordis {

// Splits line into the first *count strings of *words, reusing their storage (strings past
// *count are left for the next call). Returns false on unbalanced quotes or a closing quote not
// followed by a space.
bool SplitArgsInto(std::string_view line, std::vector<std::string>* words, size_t* count);

// As SplitArgsInto, into a vector holding exactly the words.
bool SplitArgs(std::string_view line, std::vector<std::string>* words);

}  // namespace ordis
