#include "api_error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[1024];

sb_result error_set(sb_result code, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(last_error, sizeof last_error, format, args);
    va_end(args);
    return code;
}

void error_clear(void) { last_error[0] = '\0'; }

SB_API const char *sb_last_error(void) { return last_error; }

SB_API const char *sb_result_name(sb_result result)
{
    switch (result) {
    case SB_OK: return "SB_OK";
    case SB_ERROR_INVALID_ARGUMENT: return "SB_ERROR_INVALID_ARGUMENT";
    case SB_ERROR_INVALID_MESH: return "SB_ERROR_INVALID_MESH";
    case SB_ERROR_OUT_OF_MEMORY: return "SB_ERROR_OUT_OF_MEMORY";
    case SB_ERROR_NOT_FOUND: return "SB_ERROR_NOT_FOUND";
    case SB_ERROR_SOLVER: return "SB_ERROR_SOLVER";
    default: return "SB_ERROR_UNKNOWN";
    }
}
