// The command families, one Register function each (one *_family.cc per family), and the table
// with all of them.
#pragma once

#include "server/command/command_table.h"

namespace ordis::server {

void RegisterAclFamily(CommandTable* table);
void RegisterConnectionFamily(CommandTable* table);
void RegisterServerFamily(CommandTable* table);
void RegisterMemoryFamily(CommandTable* table);
void RegisterInfo(CommandTable* table);
void RegisterCommandDocs(CommandTable* table);
void RegisterStringFamily(CommandTable* table);
void RegisterKeysFamily(CommandTable* table);
void RegisterExpireFamily(CommandTable* table);
void RegisterTransactionFamily(CommandTable* table);
void RegisterRangeFamily(CommandTable* table);
void RegisterListFamily(CommandTable* table);
void RegisterHashFamily(CommandTable* table);
void RegisterSetFamily(CommandTable* table);
void RegisterZSetFamily(CommandTable* table);
void RegisterZSetRangeFamily(CommandTable* table);
void RegisterZSetAlgebraFamily(CommandTable* table);
void RegisterStreamFamily(CommandTable* table);
void RegisterStreamGroupFamily(CommandTable* table);
void RegisterPersistenceFamily(CommandTable* table);
void RegisterScriptingFamily(CommandTable* table);
void RegisterPubSubFamily(CommandTable* table);
void RegisterDumpFamily(CommandTable* table);
void RegisterSlowlogFamily(CommandTable* table);
void RegisterLatencyFamily(CommandTable* table);
void RegisterBitmapFamily(CommandTable* table);
void RegisterHyperLogLogFamily(CommandTable* table);
void RegisterGeoFamily(CommandTable* table);
void RegisterSortFamily(CommandTable* table);
void RegisterDebugFamily(CommandTable* table);

// The table with every family registered; built once, read-only afterwards.
const CommandTable& AllCommands();

}  // namespace ordis::server
