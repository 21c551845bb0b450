/* SPDX-License-Identifier: MIT */
/* The style subcommand: Gatys style transfer of CONTENT in the style of STYLE, with progress on
 * stderr and Ctrl-C writing the best image so far. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gip/style.h"

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    interrupted = 1;
    signal(sig, SIG_DFL); /* a second Ctrl-C ends the process at once */
}

typedef struct progress_state {
    int tty, quiet;
    gip_style_progress last; /* the final call holds the run's totals */
} progress_state;

static int on_progress(void *user, const gip_style_progress *p)
{
    progress_state *ps = user;
    ps->last = *p;
    if (!ps->quiet) {
        double rate = p->seconds > 0 ? p->iteration / p->seconds : 0.0;
        if (ps->tty) {
            char bar[31];
            int fill = p->iterations ? (int)(30.0 * p->iteration / p->iterations) : 30;
            for (int i = 0; i < 30; i++)
                bar[i] = i < fill ? '#' : '.';
            bar[30] = 0;
            fprintf(stderr,
                    "\r[%s] %d/%d  loss %.4g (content %.3g, style %.3g, tv %.3g)  %.2f it/s ", bar,
                    (int)p->iteration, (int)p->iterations, p->loss, p->content, p->style, p->tv,
                    rate);
            if (p->iteration == p->iterations || interrupted)
                fputc('\n', stderr);
        } else {
            fprintf(stderr,
                    "gip style: iteration %d/%d, %d evaluations: loss %.6g (content %.4g, style "
                    "%.4g, tv %.4g), %.2f it/s\n",
                    (int)p->iteration, (int)p->iterations, (int)p->evaluations, p->loss, p->content,
                    p->style, p->tv, rate);
        }
    }
    if (interrupted) {
        fprintf(stderr, "%sgip style: interrupted; writing the best image so far\n",
                ps->tty && !ps->quiet ? "\n" : "");
        return 1;
    }
    return 0;
}

static int run_style(const cli_command *cmd, int argc, char **argv)
{
    cli_opt table[] = {
        {"--size", "N", NULL, 0},
        {"--iters", "N", NULL, 0},
        {"--weights", "FILE", NULL, 0},
        {"--seed", "S", NULL, 0},
        {"--style-weight", "W", NULL, 0},
        {"--content-weight", "W", NULL, 0},
        {"--tv-weight", "W", NULL, 0},
        {"--pool", "max|avg", NULL, 0},
        {"--init", "content|style|noise", NULL, 0},
        {"--history", "N", NULL, 0},
        {"--optimizer", "lbfgs|adam", NULL, 0},
        {"--line-search", "none|strong-wolfe|armijo", NULL, 0},
        {"--lr", "X", NULL, 0},
        {"--progress", "N", NULL, 0},
        {"--quiet", NULL, NULL, 0},
    };
    cli_opts opts = CLI_OPTS(table);
    cli_common common;
    const char *pos[3];
    int npos;
    int rc = cli_parse(cmd, argc, argv, opts, &common, pos, 3, 3, &npos);
    if (rc)
        return rc;

    int64_t size = 512, iters = 300, seed = 0, hist = 0, every = 10;
    double sw = 0, cw = 0, tv = 0, lr = 0;
    gip_style_params p = {0};
    if ((cli_opt_value(opts, "--size") &&
         cli_parse_int(cmd, "--size", cli_opt_value(opts, "--size"), 16, 4096, "16..4096",
                       &size)) ||
        (cli_opt_value(opts, "--iters") &&
         cli_parse_int(cmd, "--iters", cli_opt_value(opts, "--iters"), 1, 100000, "1..100000",
                       &iters)) ||
        (cli_opt_value(opts, "--seed") &&
         cli_parse_int(cmd, "--seed", cli_opt_value(opts, "--seed"), 0, INT64_MAX, "0..2^63-1",
                       &seed)) ||
        (cli_opt_value(opts, "--history") &&
         cli_parse_int(cmd, "--history", cli_opt_value(opts, "--history"), 1, 1000, "1..1000",
                       &hist)) ||
        (cli_opt_value(opts, "--progress") &&
         cli_parse_int(cmd, "--progress", cli_opt_value(opts, "--progress"), 1, 100000, "1..100000",
                       &every)) ||
        (cli_opt_value(opts, "--style-weight") &&
         cli_parse_double(cmd, "--style-weight", cli_opt_value(opts, "--style-weight"), 1e-30, 1e30,
                          "a number > 0", &sw)) ||
        (cli_opt_value(opts, "--content-weight") &&
         cli_parse_double(cmd, "--content-weight", cli_opt_value(opts, "--content-weight"), 1e-30,
                          1e30, "a number > 0", &cw)) ||
        (cli_opt_value(opts, "--tv-weight") &&
         cli_parse_double(cmd, "--tv-weight", cli_opt_value(opts, "--tv-weight"), 0, 1e30,
                          "a number >= 0", &tv)) ||
        (cli_opt_value(opts, "--lr") && cli_parse_double(cmd, "--lr", cli_opt_value(opts, "--lr"),
                                                         1e-30, 1e6, "a number in (0, 1e6]", &lr)))
        return CLI_EXIT_USAGE;
    if (cli_opt_value(opts, "--optimizer")) {
        if (strcmp(cli_opt_value(opts, "--optimizer"), "lbfgs") == 0)
            p.optimizer = GIP_STYLE_OPT_LBFGS;
        else if (strcmp(cli_opt_value(opts, "--optimizer"), "adam") == 0)
            p.optimizer = GIP_STYLE_OPT_ADAM;
        else
            return cli_usage(cmd, "--optimizer: '%s' is not lbfgs or adam",
                             cli_opt_value(opts, "--optimizer"));
    }
    if (cli_opt_value(opts, "--line-search")) {
        const char *v = cli_opt_value(opts, "--line-search");
        if (strcmp(v, "none") == 0)
            p.line_search = GIP_STYLE_LS_NONE;
        else if (strcmp(v, "strong-wolfe") == 0)
            p.line_search = GIP_STYLE_LS_STRONG_WOLFE;
        else if (strcmp(v, "armijo") == 0)
            p.line_search = GIP_STYLE_LS_ARMIJO;
        else
            return cli_usage(cmd, "--line-search: '%s' is not none, strong-wolfe or armijo", v);
        if (p.optimizer == GIP_STYLE_OPT_ADAM)
            return cli_usage(cmd, "--line-search applies to --optimizer lbfgs only");
    }
    if (cli_opt_value(opts, "--pool")) {
        if (strcmp(cli_opt_value(opts, "--pool"), "max") == 0)
            p.pool = GIP_STYLE_POOL_MAX;
        else if (strcmp(cli_opt_value(opts, "--pool"), "avg") == 0)
            p.pool = GIP_STYLE_POOL_AVG;
        else
            return cli_usage(cmd, "--pool: '%s' is not max or avg", cli_opt_value(opts, "--pool"));
    }
    if (cli_opt_value(opts, "--init")) {
        const char *v = cli_opt_value(opts, "--init");
        if (strcmp(v, "content") == 0)
            p.init = GIP_STYLE_INIT_CONTENT;
        else if (strcmp(v, "style") == 0)
            p.init = GIP_STYLE_INIT_STYLE;
        else if (strcmp(v, "noise") == 0)
            p.init = GIP_STYLE_INIT_NOISE;
        else
            return cli_usage(cmd, "--init: '%s' is not content, style or noise", v);
    }
    p.iterations = (int32_t)iters;
    p.seed = (uint64_t)seed;
    p.history = (int32_t)hist;
    p.progress_every = (int32_t)every;
    p.style_weight = sw;
    p.content_weight = cw;
    p.tv_weight = tv;
    p.lr = lr;

    gip_context *ctx = NULL;
    gip_image content = {0}, style = {0}, dc = {0}, ds = {0}, dst = {0}, out = {0};
    gip_net *net = NULL;
    gip_status st;
    if ((rc = cli_check_output(cmd, &common, pos[2])) || (rc = cli_context(cmd, &common, &ctx)))
        return rc;
    /* The transfer renders 8-bit RGB whatever the content holds: say what is not kept. */
    gip_image_info info;
    if (gip_image_probe(pos[0], &info) == GIP_OK &&
        (info.bit_depth == 16 || info.channels == 2 || info.channels == 4))
        fprintf(stderr, "gip %s: note: '%s' is %d-bit%s; style transfer renders 8-bit RGB%s\n",
                cmd->name, pos[0], (int)info.bit_depth,
                info.channels == 2 || info.channels == 4 ? " with alpha" : "",
                info.channels == 2 || info.channels == 4 ? " (alpha dropped)" : "");
    rc = CLI_EXIT_RUNTIME;
    gip_load_params lp = {0};
    lp.mode = GIP_LOAD_COLOR;
    if ((st = gip_image_load(pos[0], &lp, &content)) ||
        (st = gip_image_load(pos[1], &lp, &style))) {
        cli_lib_error(cmd->name, st);
        goto out_free;
    }
    if (cli_opt_value(opts, "--weights")) {
        if ((st = gip_vgg19_load(cli_opt_value(opts, "--weights"), &net))) {
            cli_lib_error(cmd->name, st);
            goto out_free;
        }
        p.net = net;
    } else if (common.verbose) {
        fprintf(stderr, "gip style: no --weights: a random VGG19 (seed %lld)\n", (long long)seed);
    }
    int64_t w, h;
    if ((st = gip_style_output_size(content.width, content.height, size, &w, &h))) {
        cli_lib_error(cmd->name, st);
        goto out_free;
    }
    int on_device = gip_context_backend(ctx) == GIP_BACKEND_CUDA;
    if ((st = gip_image_alloc(ctx, &out, w, h, 3, GIP_U8, GIP_MEM_HOST, 0))) {
        cli_lib_error(cmd->name, st);
        goto out_free;
    }
    const gip_image *c_in = &content, *s_in = &style;
    gip_image *d_out = &out;
    if (on_device) {
        if ((st = gip_image_alloc(ctx, &dc, content.width, content.height, content.channels, GIP_U8,
                                  GIP_MEM_CUDA, 0)) ||
            (st = gip_image_alloc(ctx, &ds, style.width, style.height, style.channels, GIP_U8,
                                  GIP_MEM_CUDA, 0)) ||
            (st = gip_image_alloc(ctx, &dst, w, h, 3, GIP_U8, GIP_MEM_CUDA, 0)) ||
            (st = gip_upload(ctx, &content, &dc)) || (st = gip_upload(ctx, &style, &ds))) {
            cli_lib_error(cmd->name, st);
            goto out_free;
        }
        c_in = &dc;
        s_in = &ds;
        d_out = &dst;
    }
    progress_state ps = {isatty(2), cli_opt_value(opts, "--quiet") != NULL, {0}};
    interrupted = 0;
    void (*old)(int) = signal(SIGINT, on_sigint);
    double t0 = cli_now();
    st = gip_style_transfer(ctx, c_in, s_in, d_out, &p, on_progress, &ps);
    signal(SIGINT, old);
    if (st) {
        rc = gip_status_group(st) == GIP_ERR_INVALID_ARGUMENT ? CLI_EXIT_USAGE : CLI_EXIT_RUNTIME;
        cli_lib_error(cmd->name, st);
        goto out_free;
    }
    if (ps.tty && !ps.quiet && !interrupted && ps.last.iteration != ps.last.iterations)
        fputc('\n', stderr); /* stopped early: end the bar's line */
    if (!ps.quiet)
        fprintf(stderr,
                "gip style: done: %d iterations, %d evaluations, %.3f s optimising (preparation "
                "excluded), %.3f ms per evaluation\n",
                (int)ps.last.iteration, (int)ps.last.evaluations, ps.last.seconds,
                ps.last.evaluations ? 1e3 * ps.last.seconds / ps.last.evaluations : 0.0);
    if (common.time)
        fprintf(stderr, "gip style: %lldx%lld, %lld iterations in %.3f s on %s\n", (long long)w,
                (long long)h, (long long)iters, cli_now() - t0, gip_context_describe(ctx));
    if (on_device && (st = gip_download(ctx, &dst, &out))) {
        cli_lib_error(cmd->name, st);
        goto out_free;
    }
    if ((rc = cli_save(cmd, &common, pos[2], &out, NULL))) {
        rc = CLI_EXIT_RUNTIME;
        goto out_free;
    }
    rc = CLI_EXIT_OK;
out_free:
    gip_image_free(ctx, &dc);
    gip_image_free(ctx, &ds);
    gip_image_free(ctx, &dst);
    gip_image_free(NULL, &out);
    gip_image_free(NULL, &content);
    gip_image_free(NULL, &style);
    gip_net_free(net);
    gip_context_destroy(ctx);
    return rc;
}

const cli_command cli_cmd_style = {
    .name = "style",
    .summary = "neural style transfer (Gatys et al.) with VGG19",
    .run = run_style,
    .example = "gip style --size 512 --iters 300 content.png style.png out.png",
    .help =
        "Usage: gip style [options] CONTENT STYLE OUT\n"
        "\n"
        "Renders CONTENT in the style of STYLE: VGG19 features (content conv4_2, style conv1_1 ..\n"
        "conv5_1, normalised Gram matrices), L-BFGS or Adam on the image. The content image is\n"
        "resized so that its shorter side is --size; the style image's shorter side matches it.\n"
        "\n"
        "Options:\n"
        "  --size N               shorter side of the output, 16..4096 (default 512)\n"
        "  --iters N              optimiser iterations, 1..100000 (default 300)\n"
        "  --weights FILE         VGG19 weights (.safetensors, torchvision names; convert\n"
        "                         vgg19-dcbb9e9d.pth with python -m gip.convert_vgg19); default:\n"
        "                         none, a seeded random VGG19\n"
        "  --seed S               seed of the random network and of noise, 0..2^63-1 (default 0)\n"
        "  --style-weight W       weight of the style loss, a number > 0 (default 300; losses\n"
        "                         are normalised per layer)\n"
        "  --content-weight W     weight of the content loss, a number > 0 (default 1)\n"
        "  --tv-weight W          total-variation weight, a number >= 0 (default 0: off)\n"
        "  --pool max|avg         pooling (default avg)\n"
        "  --init content|style|noise   starting image (default content)\n"
        "  --optimizer lbfgs|adam the optimiser (default lbfgs)\n"
        "  --line-search none|strong-wolfe|armijo   L-BFGS step rule (default armijo): none is\n"
        "                         torch.optim.LBFGS's default (a fixed step --lr), strong-wolfe\n"
        "                         its line_search_fn='strong_wolfe'\n"
        "  --lr X                 step, a number in (0, 1e6]: L-BFGS none/strong-wolfe (default\n"
        "                         1); Adam's learning rate on the normalised image (default 0.05)\n"
        "  --history N            L-BFGS history, 1..1000 (default 10; PyTorch's is 100)\n"
        "  --progress N           report every N iterations, 1..100000 (default 10): a progress\n"
        "                         bar on a terminal, plain lines otherwise; a summary at the end\n"
        "  --quiet                no progress report and no summary\n"
        "\n"
        "Ctrl-C stops and writes the best image so far.\n",
    .common = CLI_COMMON_DEVICE | CLI_COMMON_SAVE | CLI_COMMON_OUTPUT};
