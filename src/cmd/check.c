#include "cmd/cmd.h"
int rd_cmd_check(struct rd_ctx *ctx, int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(ctx->err, "not yet\n");
	return 3;
}
int rd_cmd_checks(struct rd_ctx *ctx, int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(ctx->err, "not yet\n");
	return 3;
}
