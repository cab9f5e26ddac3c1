/* The host context of a call; see call_context.h. */
#include "catalog/call_context.h"

const apo__call_ctx apo__call_ctx_host = {.in_gpu = -1, .out_gpu = -1};
