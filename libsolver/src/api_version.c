#include "simbake.h"

#define SB_STR2(x) #x
#define SB_STR(x) SB_STR2(x)

SB_API int32_t sb_version(void) { return SB_VERSION; }

SB_API const char *sb_version_string(void)
{
    return SB_STR(SB_VERSION_MAJOR) "." SB_STR(SB_VERSION_MINOR) "." SB_STR(SB_VERSION_PATCH);
}
