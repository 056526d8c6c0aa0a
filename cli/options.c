/*
 * The wgsync command's options: parsed into cli_opts without touching a device, so that the
 * parsing can be fuzzed on its own (tests/fuzz/fuzz_cli.c).
 */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The device options, in the general usage and in every command's. */
#define CLI_DEVICE_HELP                                                                      \
  "device:  -p, --platform N   -d, --device N   -n, --name TEXT   (or WGSYNC_DEVICE=P:D|TEXT)\n" \
  "         -n cuda, -n cuda:N: a CUDA device (when built with CUDA)\n"

void cli_usage(FILE *f)
{
  fputs(
      "usage: wgsync <command> [options]   (wgsync <command> --help: that command's options)\n"
      "       wgsync --version\n"
      "\n"
      "commands:\n"
      "  devices    list the devices of every backend (OpenCL, CUDA, Vulkan) with what matters to wgsync\n"
      "  discover   run occupancy discovery R times; counts, min/median/max, protocol time\n"
      "  bound      find the occupancy bound by the unsafe search of Sorensen et al. 2016 §5.1\n"
      "  barrier    grid-barrier self-test: K barriers with a message-passing check\n"
      "  demo       devices, discover (with recall against the bound), barrier, app bfs\n"
      "  kernels    resources of wgsync's own kernels on the device, and their build log\n"
      "  spirv      validate FILE | lower FILE -o OUT: SPIR-V split barriers (SPV_INTEL/EXT_split_barrier)\n"
      "  latency    grid-barrier latency over exactly G groups (--groups G: the compute units)\n"
      "  app NAME   graph application bfs|sssp|mis|color|bc: host loop of kernels vs persistent\n"
      "             kernel (and more forms on CUDA), each run checked against a CPU reference\n"
      "\n"
      CLI_DEVICE_HELP
      "output:  --json (errors too: an object with status, error, detail)   -q, --quiet (no progress)\n"
      "launch:  --local-size N (256)   --local-mem BYTES|max (1)   --groups N (over-provisioned)\n"
      "         --lock free|ticket|spin (free: default) --delay N (lock rounds, §5.4)   --wait-us X (close wait)\n"
      "         --timeout-ms X (checked spin bound)\n"
      "discover: --runs R (10)   --bound (also search the bound and report recall)\n"
      "bound:    --limit N (largest group count probed)\n"
      "barrier:  --rounds K (1000)   --unchecked   --discovery protocol|all\n"
      "          --barrier xf|counter|published (default: counter)   --split (arrive; work; wait)\n"
      "app:      --graph rmat:SCALE[:EF] | kron:SCALE[:EF] | random:SCALE[:DEG] | grid:W[xH]\n"
      "                  | road:W[xH] | FILE.gr|.graph|.mtx\n"
      "          --forms multi,persistent,fixed[,gridsync,graph] (default: all the device has)\n"
      "          --runs R (5, after 1 warm-up)   --src N (0)   --sources K (bc: 4)\n"
      "          --weights MAX (10000)   --seed S (1)   --fixed-groups N   --checked\n"
      "          --balance auto|nodes|edges   --all-groups   --barrier counter|published|xf\n",
      f);
}

/* An integer from lo to hi, or one message naming the option, the text and the range. */
static int parse_range(const char *s, const char *what, uint32_t lo, uint32_t hi, uint32_t *out)
{
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end || end == s || s[0] == '-' || s[0] == '+' || v < lo || v > hi) {
    fprintf(stderr, "wgsync: %s '%s': expected an integer from %u to %u\n", what, s, lo, hi);
    return -1;
  }
  *out = (uint32_t)v;
  return 0;
}
static int parse_u32(const char *s, const char *what, uint32_t *out)
{
  return parse_range(s, what, 0, UINT32_MAX, out);
}

static int parse_double(const char *s, const char *what, double *out)
{
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || *end || end == s || !(v >= 0)) {
    fprintf(stderr, "wgsync: %s '%s' is not a non-negative number\n", what, s);
    return -1;
  }
  *out = v;
  return 0;
}

/* `wgsync app --help`: the app's own options, not the whole list. */
void cli_usage_app(FILE *f)
{
  fputs("usage: wgsync app NAME [options]\n"
        "\n"
        "NAME: bfs | sssp | mis | color | bc. Runs the application in several forms, each run\n"
        "checked against a CPU reference, and reports the median time per form and the speedup of\n"
        "the persistent kernel over the host loop of kernels.\n"
        "\n"
        "  --graph SPEC       rmat:SCALE[:EF] (GTgraph's R-MAT) | kron:SCALE[:EF] (Graph500's\n"
        "                     Kronecker: social-like, skewed) | random:SCALE[:DEG] | grid:W[xH]\n"
        "                     | road:W[xH] (a grid missing a quarter of its streets: road-like)\n"
        "                     | FILE.gr|.graph|.mtx\n"
        "  --forms LIST       multi,persistent,fixed[,gridsync,graph] (default: all the device has)\n"
        "  --runs R           timed runs after one warm-up (5)\n"
        "  --src N            source node for bfs and sssp (0)\n"
        "  --sources K        bc: source nodes (4)\n"
        "  --weights MAX      edge weights 1..MAX where the format has none (10000)\n"
        "  --seed S           generator and weight seed (1)\n"
        "  --fixed-groups N   the fixed form's group count (default: the count discovery found on\n"
        "                     OpenCL, the occupancy API's on CUDA)\n"
        "  --checked          the persistent forms built checked (bounded spins, misuse reports)\n"
        "  --balance B        the steps: nodes (a work-item per node), edges (the merge-path split:\n"
        "                     a work-item per 8 or more nodes and edges), or auto\n"
        "                     (edges when the degrees are skewed, on a GPU; the default)\n"
        "  --all-groups       the persistent forms take every group that runs at once (default:\n"
        "                     no more groups than the step's work items fill; on CUDA a launch\n"
        "                     narrower than an uncapped kernel holds takes it, not the kernel\n"
        "                     capped at 32 registers: the report names each form's registers)\n"
        "  --barrier B        the persistent and fixed forms' grid barrier (default: published on\n"
        "                     CUDA, where the steps spread the groups' arrivals; counter elsewhere;\n"
        "                     the CUDA apps' counter barrier has no sharded shape: one count)\n"
        "  --local-size N, --json, -q, and the device options of `wgsync --help`\n",
        f);
}

/* `wgsync COMMAND --help`: what the command does and the options it reads. */
static const struct {
  const char *cmd, *text;
} command_help[] = {
    {"devices", "usage: wgsync devices [--json]\n\n"
                "Lists the OpenCL platforms and devices (and CUDA devices, when built with CUDA) with\n"
                "what wgsync relies on: the atomics layer, acq_rel and device scope, the split-barrier\n"
                "extension, work-group and local-memory limits.\n"},
    {"discover", "usage: wgsync discover [options]\n\n"
                 "Runs occupancy discovery R times and reports each count, min/median/max and the\n"
                 "protocol time (device clock where there is one).\n\n"
                 "  --runs R           discovery runs (10)\n"
                 "  --lock free|ticket|spin   protocol (free: the default, lock-free with close)\n"
                 "  --delay N          lock rounds of delay (Sorensen et al. 2016 §5.4)\n"
                 "  --wait-us X        the close wait\n"
                 "  --bound            also search the occupancy bound and report recall against it\n"
                 "  --local-size N (256)   --local-mem BYTES|max   --groups N   --timeout-ms X\n"},
    {"bound", "usage: wgsync bound [options]\n\n"
              "Finds the occupancy bound by the unsafe search of Sorensen et al. 2016 §5.1: a barrier over N\n"
              "launched groups with discovery off. Each probe is bounded by the checked build, so a\n"
              "deadlock is a result, not a hang. Progress goes to stderr.\n\n"
              "  --limit N          largest group count probed\n"
              "  --local-size N (256)   --local-mem BYTES|max   --timeout-ms X (probe spin bound)\n"},
    {"barrier", "usage: wgsync barrier [options]\n\n"
                "Grid-barrier self-test: K barriers, each followed by a check that every work-item\n"
                "reads what another group's work-item wrote before it.\n\n"
                "  --rounds K         barriers (1000)\n"
                "  --barrier xf|counter|published   the barrier (counter: default)\n"
                "  --split            arrive; work; wait\n"
                "  --unchecked        the unchecked build (with --discovery all: a checked probe first)\n"
                "  --discovery protocol|all   discovery, or every launched group takes part\n"
                "  --lock, --wait-us, --local-size, --local-mem, --groups, --timeout-ms: as discover\n"},
    {"latency", "usage: wgsync latency [--groups G] [options]\n\n"
                "Per-barrier latency over exactly G groups (a checked probe first, so too many\n"
                "groups is an error, not a hang): median, min and max over the runs.\n\n"
                "  --groups G         groups (default: the compute-unit count, all resident)\n"
                "  --local-size L (256)   --barrier xf|counter|published   --rounds K (barriers per run: 2000)\n"
                "  --split            the split barrier: arrive, then wait at once\n"
                "  --runs R           runs (7)\n"},
    {"kernels", "usage: wgsync kernels [-q]\n\n"
                "Resources of wgsync's own kernels on the device (registers where the driver says,\n"
                "maximum work-group size, local and private memory), and their build log.\n"},
    {"demo", "usage: wgsync demo [device options]\n\n"
             "wgsync's main job on one device: the devices, discovery with recall against the\n"
             "bound, 1000 grid barriers with a message-passing check, and bfs as a host loop of\n"
             "kernels and as one persistent kernel, each checked against a CPU BFS.\n"},
};

void cli_usage_command(FILE *f, const char *cmd)
{
  if (!strcmp(cmd, "app")) {
    cli_usage_app(f);
    return;
  }
  for (size_t i = 0; i < sizeof command_help / sizeof command_help[0]; i++)
    if (!strcmp(cmd, command_help[i].cmd)) {
      fputs(command_help[i].text, f);
      fputs("\n" CLI_DEVICE_HELP "output:  --json (not demo)   -q, --quiet (no progress on stderr)\n", f);
      return;
    }
  cli_usage(f);
}

int cli_parse(int argc, char **argv, cli_opts *o_)
{
  const char *cmd = argv[1];
  memset(o_, 0, sizeof *o_);
#define o (*o_)
  o.sel.platform = -1;
  o.sel.device = -1;
  o.wait_us = -1;
  o.runs = 10;
  o.rounds = 1000;
  o.discovery = WGS_DISCOVERY_PROTOCOL;
  o.lock = WGS_LOCK_FREE; /* the library's default (wgs_launch_config_init) */
  o.seed = 1;

  enum { O_JSON = 256, O_LS, O_LM, O_GROUPS, O_LOCK, O_DELAY, O_WAIT, O_TIMEOUT, O_RUNS, O_BOUND,
         O_LIMIT, O_ROUNDS, O_UNCHECKED, O_DISC, O_BARRIER, O_SPLIT, O_GRAPH, O_FORMS, O_SRC,
         O_SOURCES, O_WEIGHTS, O_SEED, O_FIXED, O_CHECKED, O_BALANCE, O_ALLGROUPS };
  static const struct option longs[] = {
      {"platform", required_argument, 0, 'p'}, {"device", required_argument, 0, 'd'},
      {"name", required_argument, 0, 'n'},     {"quiet", no_argument, 0, 'q'},
      {"json", no_argument, 0, O_JSON},        {"local-size", required_argument, 0, O_LS},
      {"local-mem", required_argument, 0, O_LM}, {"groups", required_argument, 0, O_GROUPS},
      {"lock", required_argument, 0, O_LOCK},  {"delay", required_argument, 0, O_DELAY},
      {"wait-us", required_argument, 0, O_WAIT}, {"timeout-ms", required_argument, 0, O_TIMEOUT},
      {"runs", required_argument, 0, O_RUNS},  {"bound", no_argument, 0, O_BOUND},
      {"limit", required_argument, 0, O_LIMIT}, {"rounds", required_argument, 0, O_ROUNDS},
      {"unchecked", no_argument, 0, O_UNCHECKED}, {"discovery", required_argument, 0, O_DISC},
      {"barrier", required_argument, 0, O_BARRIER}, {"split", no_argument, 0, O_SPLIT},
      {"graph", required_argument, 0, O_GRAPH}, {"forms", required_argument, 0, O_FORMS},
      {"src", required_argument, 0, O_SRC},    {"sources", required_argument, 0, O_SOURCES},
      {"weights", required_argument, 0, O_WEIGHTS}, {"seed", required_argument, 0, O_SEED},
      {"fixed-groups", required_argument, 0, O_FIXED}, {"checked", no_argument, 0, O_CHECKED},
      {"balance", required_argument, 0, O_BALANCE}, {"all-groups", no_argument, 0, O_ALLGROUPS},
      {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
  /* getopt over argv[1..] (the command is its argv[0]); optind = 0 makes GNU getopt start
   * afresh, so parsing twice in one process (the fuzzer) sees no state from before */
  int sub_argc = argc - 1;
  char **sub_argv = argv + 1;
  optind = 0;
  int c;
  uint32_t u = 0;
  while ((c = getopt_long(sub_argc, sub_argv, "p:d:n:qh", longs, NULL)) != -1) {
    switch (c) {
    case 'p':
      if (parse_range(optarg, "--platform", 0, INT_MAX, &u))
        return 2;
      o.sel.platform = (int)u;
      break;
    case 'd':
      if (parse_range(optarg, "--device", 0, INT_MAX, &u))
        return 2;
      o.sel.device = (int)u;
      break;
    case 'n':
      o.sel.name = optarg;
      break;
    case 'q':
      o.quiet = 1;
      break;
    case 'h':
      cli_usage_command(stdout, cmd);
      return 0;
    case O_JSON:
      o.json = 1;
      break;
    case O_LS:
      if (parse_range(optarg, "--local-size", 1, UINT32_MAX, &u))
        return 2;
      o.local_size = u;
      break;
    case O_LM:
      if (!strcmp(optarg, "max"))
        o.local_mem = SIZE_MAX;
      else if (parse_u32(optarg, "--local-mem", &u))
        return 2;
      else
        o.local_mem = u;
      break;
    case O_GROUPS:
      if (parse_u32(optarg, "--groups", &o.groups))
        return 2;
      break;
    case O_LOCK:
      if (!strcmp(optarg, "ticket"))
        o.lock = WGS_LOCK_TICKET;
      else if (!strcmp(optarg, "spin"))
        o.lock = WGS_LOCK_SPIN;
      else if (!strcmp(optarg, "free"))
        o.lock = WGS_LOCK_FREE;
      else {
        fprintf(stderr, "wgsync: --lock '%s' is not 'ticket', 'spin' or 'free'\n", optarg);
        return 2;
      }
      o.lock_set = 1;
      break;
    case O_DELAY:
      if (parse_u32(optarg, "--delay", &o.delay))
        return 2;
      break;
    case O_WAIT:
      if (parse_double(optarg, "--wait-us", &o.wait_us))
        return 2;
      break;
    case O_TIMEOUT:
      if (parse_double(optarg, "--timeout-ms", &o.timeout_ms))
        return 2;
      break;
    case O_RUNS:
      o.runs_set = 1;
      if (parse_range(optarg, "--runs", 1, UINT32_MAX, &o.runs))
        return 2;
      break;
    case O_BOUND:
      o.with_bound = 1;
      break;
    case O_LIMIT:
      if (parse_u32(optarg, "--limit", &o.limit))
        return 2;
      break;
    case O_ROUNDS:
      o.rounds_set = 1;
      if (parse_range(optarg, "--rounds", 1, UINT32_MAX, &o.rounds))
        return 2;
      break;
    case O_UNCHECKED:
      o.unchecked = 1;
      break;
    case O_SPLIT:
      o.split = 1;
      break;
    case O_BARRIER:
      if (!strcmp(optarg, "xf"))
        o.barrier = WGS_BARRIER_XF;
      else if (!strcmp(optarg, "counter"))
        o.barrier = WGS_BARRIER_COUNTER;
      else if (!strcmp(optarg, "published"))
        o.barrier = WGS_BARRIER_PUBLISHED;
      else if (!strcmp(optarg, "default"))
        o.barrier = WGS_BARRIER_DEFAULT;
      else {
        fprintf(stderr, "wgsync: --barrier '%s' is not 'xf', 'counter', 'published' or 'default'\n", optarg);
        return 2;
      }
      break;
    case O_DISC:
      if (!strcmp(optarg, "protocol"))
        o.discovery = WGS_DISCOVERY_PROTOCOL;
      else if (!strcmp(optarg, "all"))
        o.discovery = WGS_DISCOVERY_ALL;
      else {
        fprintf(stderr, "wgsync: --discovery '%s' is not 'protocol' or 'all'\n", optarg);
        return 2;
      }
      break;
    case O_GRAPH:
      o.graph = optarg;
      break;
    case O_FORMS:
      o.forms = optarg;
      break;
    case O_SRC:
      if (parse_u32(optarg, "--src", &o.src))
        return 2;
      break;
    case O_SOURCES:
      if (parse_range(optarg, "--sources", 1, UINT32_MAX, &o.bc_sources))
        return 2;
      break;
    case O_WEIGHTS:
      if (parse_range(optarg, "--weights", 1, 100000000u, &o.max_weight))
        return 2;
      break;
    case O_SEED:
      if (parse_u32(optarg, "--seed", &u))
        return 2;
      o.seed = u;
      break;
    case O_FIXED:
      if (parse_u32(optarg, "--fixed-groups", &o.fixed_groups))
        return 2;
      break;
    case O_CHECKED:
      o.checked = 1;
      break;
    case O_BALANCE:
      if (!strcmp(optarg, "auto"))
        o.balance = 0;
      else if (!strcmp(optarg, "nodes"))
        o.balance = 1;
      else if (!strcmp(optarg, "edges"))
        o.balance = 2;
      else {
        fprintf(stderr, "wgsync: --balance '%s' is not 'auto', 'nodes' or 'edges'\n", optarg);
        return 2;
      }
      break;
    case O_ALLGROUPS:
      o.all_groups = 1;
      break;
    default:
      cli_usage(stderr);
      return 2;
    }
  }
  if (!strcmp(cmd, "app") && optind < sub_argc)
    o.app_name = sub_argv[optind++];
  if (optind < sub_argc) {
    fprintf(stderr, "wgsync: unexpected argument '%s'\n", sub_argv[optind]);
    return 2;
  }
  int known = !strcmp(cmd, "devices") || !strcmp(cmd, "discover") || !strcmp(cmd, "bound") ||
              !strcmp(cmd, "barrier") || !strcmp(cmd, "demo") || !strcmp(cmd, "kernels") ||
              !strcmp(cmd, "latency") || !strcmp(cmd, "app");
  if (!known) {
    fprintf(stderr, "wgsync: unknown command '%s'\n", cmd);
    cli_usage(stderr);
    return 2;
  }
  return -1;
#undef o

}
