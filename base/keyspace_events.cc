#include "base/keyspace_events.h"

namespace ordis::keyspace_events {

bool Parse(std::string_view letters, uint32_t* classes) {
  uint32_t out = 0;
  for (char c : letters) {
    switch (c) {
      // clang-format off
      case 'A': out |= kAll; break;
      case 'g': out |= kGeneric; break;
      case '$': out |= kString; break;
      case 'l': out |= kList; break;
      case 's': out |= kSet; break;
      case 'h': out |= kHash; break;
      case 'z': out |= kZset; break;
      case 'x': out |= kExpired; break;
      case 'e': out |= kEvicted; break;
      case 'K': out |= kKeyspace; break;
      case 'E': out |= kKeyevent; break;
      case 't': out |= kStream; break;
      case 'm': out |= kKeyMiss; break;
      case 'd': out |= kModule; break;
      case 'n': out |= kNew; break;
      default: return false;
        // clang-format on
    }
  }
  *classes = out;
  return true;
}

std::string Text(uint32_t classes) {
  std::string out;
  if ((classes & kAll) == kAll) {
    out += 'A';
  } else {
    static constexpr std::pair<uint32_t, char> kLetters[] = {
        {kGeneric, 'g'}, {kString, '$'}, {kList, 'l'},    {kSet, 's'},
        {kHash, 'h'},    {kZset, 'z'},   {kExpired, 'x'}, {kEvicted, 'e'},
        {kStream, 't'},  {kModule, 'd'}, {kNew, 'n'}};
    for (const auto& [bit, letter] : kLetters) {
      if (classes & bit) out += letter;
    }
  }
  if (classes & kKeyspace) out += 'K';
  if (classes & kKeyevent) out += 'E';
  if (classes & kKeyMiss) out += 'm';
  return out;
}

}  // namespace ordis::keyspace_events
