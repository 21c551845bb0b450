/* SPDX-License-Identifier: MIT */
/* Replays every kept fuzz input (tests/crashers/<target>/ and the seeds fuzz/corpus/<target>/)
 * through the fuzz targets' own entry points, each in a child process, and checks that each
 * returns a status instead of crashing or breaking a promise (fuzz/fuzz_entries.c aborts then).
 * CLI inputs run the built gip tool in a scratch folder. */
#include "../fuzz/fuzz_entries.c" /* the same code the fuzz targets run (see fuzz/CMakeLists.txt) */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "testing.h"

typedef int (*entry_fn)(const uint8_t *data, size_t size);

static int entry_jpeg(const uint8_t *d, size_t n)
{
    return gip_fuzz_decode(d, n, GIP_FORMAT_JPEG);
}
static int entry_png(const uint8_t *d, size_t n)
{
    return gip_fuzz_decode(d, n, GIP_FORMAT_PNG);
}
static int entry_pnm(const uint8_t *d, size_t n)
{
    return gip_fuzz_decode(d, n, GIP_FORMAT_PNM);
}

/* One row per fuzz target; "cli" runs the tool instead of an entry (entry NULL). A target that
 * is added to fuzz/ adds its row here (the pipeline parser's: {"pipeline", entry}). */
static const struct {
    const char *target;
    entry_fn entry;
} targets[] = {
    {"jpeg", entry_jpeg},    {"png", entry_png},
    {"pnm", entry_pnm},      {"safetensors", gip_fuzz_safetensors},
    {"expr", gip_fuzz_expr}, {"pipeline", gip_fuzz_pipeline},
    {"cli", NULL},
};

static char gip_tool[PATH_MAX];   /* the built CLI, "" when it is not there */
static char scratch[PATH_MAX];    /* folder the CLI runs in */
static int replayed, skipped_cli; /* counts for the summary */

static uint8_t *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            uint8_t *p = realloc(buf, cap * 2);
            if (!p)
                free(buf);
            buf = p;
            cap *= 2;
        }
    }
    fclose(f);
    *size = n;
    return buf;
}

/* How a child ended: "" for a normal exit with status 0..2, else what happened. */
static void describe_end(int status, char *out, size_t size)
{
    out[0] = '\0';
    if (WIFSIGNALED(status))
        snprintf(out, size, "killed by signal %d", WTERMSIG(status));
    else if (WIFEXITED(status) && WEXITSTATUS(status) > 2)
        snprintf(out, size, "exit status %d", WEXITSTATUS(status));
}

static void replay_entry(entry_fn fn, const char *path)
{
    size_t n = 0;
    uint8_t *d = read_all(path, &n);
    if (!GT_CHECK(d != NULL, "cannot read %s", path))
        return;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        fn(d, n);
        _exit(0);
    }
    free(d);
    int status = 0;
    if (!GT_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork/wait failed for %s", path))
        return;
    char why[64];
    describe_end(status, why, sizeof why);
    GT_CHECK(why[0] == '\0', "%s: %s (run the fuzz target on it to see the report)", path, why);
    replayed++;
}

static void replay_cli(const char *path)
{
    size_t n = 0;
    uint8_t *d = read_all(path, &n);
    if (!GT_CHECK(d != NULL, "cannot read %s", path))
        return;
    static char buf[GIP_FUZZ_CLI_MAX_BYTES + 8];
    static char *argv[GIP_FUZZ_CLI_MAX_ARGS + 2];
    int argc = gip_fuzz_cli_argv(d, n, buf, argv);
    free(d);
    if (argc < 0 || !gip_tool[0]) {
        skipped_cli++;
        return;
    }
    argv[0] = gip_tool;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (chdir(scratch) != 0 || null < 0)
            _exit(99);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        execv(gip_tool, argv);
        _exit(98);
    }
    int status = 0;
    if (!GT_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork/wait failed for %s", path))
        return;
    char why[64];
    describe_end(status, why, sizeof why);
    GT_CHECK(why[0] == '\0', "%s: gip %s: %s", path, argc > 1 ? argv[1] : "", why);
    replayed++;
}

static void replay_dir(const char *dir, int t)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return; /* a target without kept inputs */
    struct dirent *e;
    char path[PATH_MAX];
    while ((e = readdir(dp))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        if (targets[t].entry)
            replay_entry(targets[t].entry, path);
        else
            replay_cli(path);
    }
    closedir(dp);
}

/* The gip tool sits in the build's top folder, one above this test's. */
static void find_tool(void)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    gip_tool[0] = '\0';
    if (n <= 0)
        return;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash)
        return;
    *slash = '\0';
    snprintf(gip_tool, sizeof gip_tool, "%s/../gip", self);
    if (access(gip_tool, X_OK) != 0) {
        printf("note: no gip tool at %s: CLI inputs are not replayed\n", gip_tool);
        gip_tool[0] = '\0';
    }
}

static void remove_scratch(void)
{
    DIR *dp = opendir(scratch);
    if (!dp)
        return;
    struct dirent *e;
    char path[PATH_MAX];
    while ((e = readdir(dp)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            snprintf(path, sizeof path, "%s/%s", scratch, e->d_name);
            unlink(path);
        }
    closedir(dp);
    rmdir(scratch);
}

static void body(gip_context *ctx)
{
    (void)ctx;
    find_tool();
    snprintf(scratch, sizeof scratch, "/tmp/gip-crashers.XXXXXX");
    char here[PATH_MAX];
    if (!GT_CHECK(mkdtemp(scratch) != NULL && getcwd(here, sizeof here) != NULL,
                  "cannot make a scratch folder: %s", strerror(errno)))
        return;
    /* The CLI's inputs, written by the library into the scratch folder. */
    GT_CHECK(chdir(scratch) == 0 && gip_fuzz_cli_inputs() == 0 && chdir(here) == 0,
             "cannot write the CLI inputs: %s", gip_last_error());

    char dir[PATH_MAX];
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
        int before = replayed;
        snprintf(dir, sizeof dir, "%s/../tests/crashers/%s", GIP_DATA_DIR, targets[t].target);
        replay_dir(dir, (int)t);
        snprintf(dir, sizeof dir, "%s/../fuzz/corpus/%s", GIP_DATA_DIR, targets[t].target);
        replay_dir(dir, (int)t);
        printf("%-12s %d inputs replayed\n", targets[t].target, replayed - before);
    }
    if (skipped_cli)
        printf("cli: %d inputs not run (unbounded work, or no tool)\n", skipped_cli);
    /* The seeds alone give more than this; fewer means the folders were not found. */
    GT_CHECK(replayed >= 40, "only %d inputs replayed: are fuzz/corpus and tests/crashers there?",
             replayed);
    remove_scratch();
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "cuda") == 0) {
        printf("SKIP: crashers: the fuzzed parsers run on the host; crashers_cpu replays them\n");
        return GT_SKIP;
    }
    return gt_main(argc, argv, "crashers", body);
}
