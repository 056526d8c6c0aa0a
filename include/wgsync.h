/*
 * wgsync — barriers for GPU kernels, portably and without deadlock.
 *
 * The host API: open a device, build a program with the wgsync device library included, and
 * launch a kernel persistently — over-provisioned, with the occupancy discovery protocol of
 * "Portable Inter-workgroup Barrier Synchronisation for GPUs" (OOPSLA 2016, Sorensen et al. 2016) deciding
 * which groups take part. Every call returns a status (0 or a negative WGS_E* value);
 * wgs_strerror() names it and wgs_last_error() says what exactly went wrong (which argument,
 * which limit, the build log). The library prints nothing and never ends the process.
 *
 * Backend interop (cl_context, cl_kernel, ...) lives in wgsync_opencl.h.
 *
 * Lifetimes (as OpenCL's references): a kernel keeps its program, and programs, kernels,
 * states and buffers keep their device, so each may be released in any order; a handle is
 * released once. Threads: a state takes one launch at a time (launches on it from several
 * threads are serialised, each gets its own result); a kernel's arguments belong to whoever
 * sets them, so threads that launch one kernel with different arguments need a kernel each.
 */
#ifndef WGSYNC_H
#define WGSYNC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version, written once: CMake reads these three lines for project(VERSION). */
#define WGS_VERSION_MAJOR 0
#define WGS_VERSION_MINOR 1
#define WGS_VERSION_PATCH 0
#define WGS__STR2(x) #x
#define WGS__STR(x) WGS__STR2(x)
#define WGS_VERSION_STRING                                                                   \
  WGS__STR(WGS_VERSION_MAJOR) "." WGS__STR(WGS_VERSION_MINOR) "." WGS__STR(WGS_VERSION_PATCH)

/* XX(name, value, message) */
#define WGS_STATUS_MAP(XX)                                                                   \
  XX(OK, 0, "success")                                                                       \
  XX(EINVAL, -1, "invalid argument")                                                         \
  XX(ENOMEM, -2, "out of host memory")                                                       \
  XX(ENODEV, -3, "no such device")                                                           \
  XX(EBACKEND, -4, "backend call failed")                                                    \
  XX(EBUILD, -5, "program build failed")                                                     \
  XX(ENOKERNEL, -6, "no kernel of that name in the program")                                \
  XX(ELIMIT, -7, "a device limit was exceeded")                                              \
  XX(EDEADLOCK, -8, "a barrier was not reached by every group (deadlock caught)")            \
  XX(ELOCK, -9, "the discovery mutex was never granted (deadlock caught)")                   \
  XX(EUNSUPPORTED, -10, "not supported by this device or build")                            \
  XX(EIO, -11, "could not read a file")                                                      \
  XX(EMISMATCH, -12, "a barrier let a stale value through (memory ordering violated)")     \
  XX(ESPIRV, -13, "malformed SPIR-V binary")                                                 \
  XX(EVALIDATION, -14, "SPIR-V module breaks the split-barrier rules")                       \
  XX(EMISUSE, -15, "the kernel broke a rule of the device library (checked build)")

typedef enum {
#define WGS__STATUS_ENUM(name, value, msg) WGS_##name = (value),
  WGS_STATUS_MAP(WGS__STATUS_ENUM)
#undef WGS__STATUS_ENUM
} wgs_status;

/* "invalid argument" etc.; never NULL. */
const char *wgs_strerror(int status);
/* "WGS_EINVAL" etc.; never NULL. */
const char *wgs_status_name(int status);
/* Detail of the last failed call on this thread ("" if none). Valid until the next call. */
const char *wgs_last_error(void);

/* ---- devices ---------------------------------------------------------------------------- */

typedef struct wgs_device wgs_device_t;

typedef enum {
  WGS_BACKEND_OPENCL = 0,
  WGS_BACKEND_CUDA = 1, /* wgsync_cuda.h */
  WGS_BACKEND_NULL = 2, /* "null": no device; launches run no code (for testing a host program
                           and the library's host side without a GPU or OpenCL) */
  WGS_BACKEND_VULKAN = 3, /* "vulkan" or "vulkan:N": SPIR-V compute shaders written against
                             device/vulkan/wgsync.glsl (wgs_program_build_il) */
} wgs_backend;

/* How cross-group memory ordering is implemented on a device (device/opencl/wgs_atomics.cl). */
typedef enum {
  WGS_ATOMICS_C11 = 0,   /* OpenCL C 2.0/3.0 acquire/release at device scope */
  WGS_ATOMICS_PTX = 1,   /* NVIDIA: ld.acquire.gpu / st.release.gpu / fence.acq_rel.gpu */
  WGS_ATOMICS_FENCE = 2, /* OpenCL 1.2 atomics + mem_fence: best effort */
  WGS_ATOMICS_VULKAN = 3, /* the Vulkan memory model: acquire/release at QueueFamily scope */
} wgs_atomics;

typedef struct {
  wgs_backend backend;
  int platform_index, device_index; /* -1 for a wrapped device */
  char platform_name[128];
  char name[256];
  char vendor[128];
  char driver_version[128];
  char device_version[128];  /* "OpenCL 3.0 ..." */
  char c_version[64];        /* highest OpenCL C version the device builds */
  int is_gpu, is_cpu;
  unsigned compute_units;
  size_t max_work_group_size;
  uint64_t local_mem_bytes;
  uint64_t global_mem_bytes;
  wgs_atomics atomics;       /* the layer wgsync builds programs with */
  int has_acq_rel;           /* __opencl_c_atomic_order_acq_rel (or OpenCL C 2.x) */
  int has_scope_device;      /* __opencl_c_atomic_scope_device (or OpenCL C 2.x) */
  int has_split_barrier;     /* cl_intel_split_work_group_barrier */
  int has_timer;             /* device-side clock: protocol times measured on device */
} wgs_device_info;

/* Which device to open. Zero-initialise, then set what you need; see wgs_device_open. */
typedef struct {
  int platform; /* -1: any */
  int device;   /* -1: any (index within the platform, or overall when platform is -1) */
  const char *name; /* substring of "platform device vendor", case-insensitive; NULL: any */
} wgs_device_select;

/* Opens a device: an OpenCL device with its own context and (profiling) queue, or, when the
 * name is "cuda" or "cuda:N", CUDA device N (the program links wgsync_cuda; see wgsync_cuda.h
 * for its kernel handles); "vulkan" or "vulkan:N", the N-th Vulkan device wgsync can use;
 * "null", a device that runs no code (WGS_BACKEND_NULL), which only opening it by name gives.
 * An OpenCL name "P:D" is platform P's device D; other text is looked for in the platforms',
 * devices' and vendors' names.
 * sel NULL, or every field unset (platform = device = -1, name NULL), means: the environment
 * variable WGSYNC_DEVICE if set (any of those names), else the first OpenCL GPU, else the first
 * OpenCL device. Returns WGS_ENODEV naming what was asked when nothing matches,
 * WGS_EUNSUPPORTED when the program lacks the backend asked for. */
int wgs_device_open(const wgs_device_select *sel, wgs_device_t **out);
void wgs_device_close(wgs_device_t *dev);
int wgs_device_get_info(const wgs_device_t *dev, wgs_device_info *out);

/* Every device of every backend the program carries: each OpenCL platform's devices, then the
 * CUDA devices (their info's backend and indices say how to open each: "P:D", "cuda:N").
 * *count receives the number written (<= cap); with infos NULL and cap 0, the number there is
 * (nothing written: ask, allocate, then list). WGS_ENODEV, with each backend's reason, when
 * there is none; when some backend has none but another has, wgs_last_error() names it and
 * why (empty when every backend has devices). */
int wgs_device_list(wgs_device_info *infos, size_t cap, size_t *count);

/* The name that opens the device `in` describes (as wgs_device_select.name or WGSYNC_DEVICE):
 * "P:D" for OpenCL, "cuda:N", "vulkan:N", "null:0". WGS_EINVAL when cap bytes do not hold it. */
int wgs_device_id(const wgs_device_info *in, char *out, size_t cap);
/* A backend's name: "OpenCL", "CUDA", "Vulkan", "null" ("unknown" for another value). */
const char *wgs_backend_name(wgs_backend backend);

/* ---- programs --------------------------------------------------------------------------- */

typedef struct wgs_program wgs_program_t;
typedef struct wgs_kernel wgs_kernel_t;

enum {
  WGS_BUILD_CHECKED = 1u << 0, /* bounded spins; unreached barriers are reported, not hung */
};

/* Builds source with the wgsync device library in front of it (so the source can call
 * wgs_discover, wgs_grid_barrier, ...). options are appended to wgsync's own (-cl-std=...).
 * On WGS_EBUILD, wgs_last_error() holds the build log (user source lines numbered from 1). */
int wgs_program_build(wgs_device_t *dev, const char *source, const char *options, unsigned flags,
                      wgs_program_t **out);
void wgs_program_release(wgs_program_t *prog);
/* The last build log (may be empty); owned by the program. */
const char *wgs_program_build_log(const wgs_program_t *prog);

int wgs_kernel_create(wgs_program_t *prog, const char *name, wgs_kernel_t **out);
void wgs_kernel_release(wgs_kernel_t *k);
/* Same as clSetKernelArg; for a buffer pass &cl_mem. value NULL with size > 0 sets local memory. */
int wgs_kernel_set_arg(wgs_kernel_t *k, unsigned index, size_t size, const void *value);

/* What a kernel takes of its device, as the driver reports it (OpenCL's
 * clGetKernelWorkGroupInfo, CUDA's function attributes). */
typedef struct {
  size_t max_local_size;      /* the largest work-group (block) it can be launched with */
  uint64_t local_mem_bytes;   /* its static __local (__shared__) memory per group */
  uint64_t private_mem_bytes; /* private memory per work-item (arrays, spills) */
  int registers;              /* per work-item; -1 where the driver does not say (OpenCL) */
} wgs_kernel_resources;
int wgs_kernel_get_resources(wgs_kernel_t *k, wgs_kernel_resources *out);

/* Device buffers, for kernels' data. */
typedef struct wgs_buffer wgs_buffer_t;
int wgs_buffer_create(wgs_device_t *dev, size_t bytes, wgs_buffer_t **out);
void wgs_buffer_release(wgs_buffer_t *buf);
int wgs_buffer_write(wgs_buffer_t *buf, size_t offset, size_t bytes, const void *src);
int wgs_buffer_read(wgs_buffer_t *buf, size_t offset, size_t bytes, void *dst);
int wgs_kernel_set_arg_buffer(wgs_kernel_t *k, unsigned index, wgs_buffer_t *buf);

/* ---- protocol state and persistent launch ----------------------------------------------- */

typedef struct wgs_state wgs_state_t;

/* Device buffer holding the protocol's variables for up to max_groups launched groups. */
int wgs_state_create(wgs_device_t *dev, uint32_t max_groups, wgs_state_t **out);
void wgs_state_release(wgs_state_t *st);

typedef enum {
  WGS_LOCK_TICKET = 0, /* fair: the paper's choice, near 100% recall */
  WGS_LOCK_SPIN = 1,   /* unfair test-and-set, for comparison (Sorensen et al. 2016 Table 3) */
  WGS_LOCK_FREE = 2,   /* wgsync's lock-free counter protocol: one atomic add per group and an
                          atomic close, no mutex (device/common/wgs_core.h argues §3.2).
                          The default of wgs_launch_config_init: the fastest, same recall */
} wgs_lock;

typedef enum {
  WGS_DISCOVERY_PROTOCOL = 0, /* participants found by the protocol (the portable default) */
  WGS_DISCOVERY_ALL = 1,      /* every launched group takes part: UNSAFE beyond the occupancy
                                 bound; what the bound search probes with (checked builds) */
  WGS_DISCOVERY_FIXED = 2,    /* every launched group takes part, for a count the caller knows
                                 to be occupant (Sorensen et al. 2016 §5.3 "specialised") */
} wgs_discovery;

/* Grid barrier algorithm, chosen per launch. */
typedef enum {
  WGS_BARRIER_DEFAULT = 0, /* the fastest measured: COUNTER (docs/results.md) */
  WGS_BARRIER_XF = 1,      /* Sorensen et al. 2016 §4.2: the master group polls one flag per group */
  WGS_BARRIER_COUNTER = 2, /* arrival counts, their shape chosen by the group count
                              (device/common/wgs_core.h, "Counter barrier") */
  WGS_BARRIER_PUBLISHED = 3, /* the counter barrier, in its published shape from 880 groups (one
                              count of release adds; the last arrival publishes the instance for
                              the others to poll), in its default shapes below. For kernels
                              whose groups reach each barrier at different times, after steps
                              of real work: no acquire at the arrivals (which slows the groups
                              still working) and no hop after the last one. Back to back,
                              COUNTER is faster (docs/guide.md, "Choosing a grid barrier").
                              CUDA and OpenCL; not the Vulkan library */
} wgs_barrier;

typedef struct {
  size_t local_size;        /* work-items per group; 0: the kernel's reqd_work_group_size, else
                               256 capped at the kernel's maximum */
  uint32_t groups;          /* groups to launch; 0: over-provisioned default */
  unsigned state_arg;       /* kernel argument index that receives the state buffer */
  wgs_lock lock;
  uint32_t delay;           /* lock/unlock rounds between polling and closing (Sorensen et al. 2016 §5.4) */
  double close_wait_us;     /* quiescence wait (wgsync): before closing the poll, a participant
                               waits outside the mutex until no group has polled for this long,
                               so late-starting groups still poll. < 0: the device default
                               (10 us on GPUs, 20 ms on CPUs, whose worker threads wake late);
                               0: none, the protocol exactly as Fig. 3; at most 4 s */
  wgs_discovery discovery;
  double timeout_ms;        /* checked builds: how long one spin may wait; 0: default */
  wgs_barrier barrier;      /* which grid barrier wgs_grid_barrier runs */
  uint32_t close_at;        /* the quiescence wait ends as soon as this many groups have polled.
                               0: automatic (CPU devices: their compute units, which on PoCL is
                               the worker-thread count, i.e. the occupancy bound; CUDA: what the
                               occupancy API says for this kernel; other devices: off);
                               UINT32_MAX: off. Too high only means the full wait, too low
                               closes early (fewer participants); safety is unaffected. The wait
                               also ends once every launched group has polled, whatever this
                               says: no more can come */
  int time_protocol;        /* 1: measure res.protocol_us on the device clock (each group stamps
                               its start and exit; 16 bytes per group are read back after the
                               kernel). 0 (default): skip, as a production launch should */
  int time_kernel;          /* 1: measure res.kernel_us with timing events around the kernel.
                               0 (default): no events, kernel_us is -1 */
} wgs_launch_config;

typedef struct {
  uint32_t launched;       /* groups launched */
  uint32_t participants;   /* groups that took part */
  double protocol_us;      /* first group's start to last participant's exit, measured on the
                              device; -1 where the device has no clock */
  double kernel_us;        /* whole kernel, from profiling events; -1 if unavailable */
  /* Filled on WGS_EDEADLOCK / WGS_ELOCK (checked builds). */
  uint32_t err_site;       /* source line of the barrier call in the user's program */
  uint32_t err_instance;   /* how many grid barriers had been passed before it */
  uint32_t err_arrived, err_expected;
  uint32_t err_missing_count;
  uint32_t err_missing[24]; /* participating ids that never arrived (first 24) */
  /* Discovery: the groups this device runs at once that the close waited for (a CPU's worker
   * threads; CUDA: the occupancy API's count for the kernel), at most those launched; 0 where
   * unknown (other GPUs) or without discovery. participants < expected: the close wait ended
   * before every running group polled (a loaded machine, workers started late): a longer
   * close_wait_us finds them; the launch is correct either way. */
  uint32_t expected;
} wgs_launch_result;

void wgs_launch_config_init(wgs_launch_config *cfg);

/* Binds the state to argument cfg->state_arg, launches, waits, and reports: wgs_launch_async
 * then wgs_state_result. Returns WGS_EDEADLOCK (with the report in *res and wgs_last_error)
 * when a checked build caught a barrier that some groups never reached. res may be NULL.
 * A launch needs no reset of the state: the kernel keeps it valid for the next launch (launch
 * epochs, device/common/wgs_layout.h), so a launch is one kernel launch plus, when the config
 * changed since the last one, one small write. Launches on one state must be ordered (one
 * queue, or events); checked programs have the state reset before each launch instead (a
 * fill), which keeps every misuse check exact. */
int wgs_launch(wgs_state_t *st, wgs_kernel_t *k, const wgs_launch_config *cfg,
               wgs_launch_result *res);
/* Enqueues the launch on the device's queue and returns; nothing is read back. */
int wgs_launch_async(wgs_state_t *st, wgs_kernel_t *k, const wgs_launch_config *cfg);
/* Waits for the state's launches and reports the latest: its participants, kernel_us when
 * asked, and the first checked-build error any launch recorded since the last call (which it
 * then clears). Returns that launch's status, as wgs_launch would have. */
int wgs_state_result(wgs_state_t *st, wgs_launch_result *res);

/* An ordinary launch, no discovery and no state: kernel k over a dims-dimensional range (1 to
 * 3) of global[d] work-items in groups of local[d] (local may be NULL: the driver chooses), on
 * the device's queue; waits for it to finish. For kernels that use only the work-group split
 * built-ins (intel_work_group_barrier_arrive / _wait) or no barrier at all. A global[d] that
 * is not a multiple of local[d] needs non-uniform work-groups (OpenCL 2.0; neither PoCL 3.1 nor
 * NVIDIA has them): elsewhere it is WGS_ELIMIT, saying so. */
int wgs_kernel_run(wgs_kernel_t *k, unsigned dims, const size_t *global, const size_t *local);

/* Over-provisioned group count wgs_launch uses when cfg->groups is 0. */
uint32_t wgs_default_groups(const wgs_device_t *dev, size_t local_size);
/* Work-items per group wgs_launch uses when cfg->local_size is 0 and the kernel requires no
 * size: 256 capped at the device's largest group (OpenCL also caps it at the kernel's
 * maximum, known once the kernel is built); 0 when dev is NULL. */
size_t wgs_default_local_size(const wgs_device_t *dev);

/* ---- occupancy tools (the microbenchmarks of Sorensen et al. 2016 §5.1) ----------------------------- */

typedef struct {
  size_t local_size;
  size_t local_mem_bytes; /* dynamic local memory each group allocates (>= 1) */
  wgs_lock lock;
  uint32_t delay;
  double close_wait_us;   /* as in wgs_launch_config */
  uint32_t groups;        /* 0: over-provisioned default */
  double timeout_ms;      /* 0: default */
  wgs_barrier barrier;
} wgs_occupancy_config;

/* One run of the discovery microbenchmark: discovery, then one grid barrier among the
 * participants (checked build, so a wrong answer is an error, not a hang). */
int wgs_occupancy_discover(wgs_device_t *dev, const wgs_occupancy_config *cfg,
                           wgs_launch_result *res);

/* The largest dynamic local memory a group of local_size work-items of the microbenchmark can
 * allocate and still launch: CL_DEVICE_LOCAL_MEM_SIZE less what the kernel and the driver hold
 * back (NVIDIA refuses the full 48 KiB), found by launching one group. */
int wgs_occupancy_max_local_mem(wgs_device_t *dev, size_t local_size, size_t *bytes);

/* The unsafe search of §5.1: the largest N such that a grid barrier over N launched groups
 * (discovery off) completes while N+1 is caught as a deadlock. probe(n, ok) is called after each
 * probe when non-NULL (progress). */
int wgs_occupancy_bound(wgs_device_t *dev, const wgs_occupancy_config *cfg, uint32_t limit,
                        void (*probe)(void *user, uint32_t groups, int ok), void *user,
                        uint32_t *bound);

/* Grid-barrier self-test: `rounds` grid barriers with a message-passing check across each
 * (every work-item checks values another group wrote before the same barrier). Returns
 * WGS_EMISMATCH with the first stale read in *res when the barrier failed to order them. */
typedef struct {
  size_t local_size;  /* 0: 256 capped at the kernel's maximum */
  uint32_t groups;    /* 0: over-provisioned default */
  uint32_t rounds;    /* 0: 1000 */
  wgs_lock lock;
  uint32_t delay;
  double close_wait_us;
  wgs_discovery discovery;
  double timeout_ms;
  int unchecked;      /* 1: run the unchecked (production) build of the barrier */
  wgs_barrier barrier;
  int split;          /* use the split grid barrier (arrive; other work; wait) */
} wgs_selftest_config;

typedef struct {
  wgs_launch_result launch;
  uint32_t rounds;
  uint32_t mismatches;     /* stale reads seen */
  uint32_t groups_done;    /* participating groups that finished every round */
  uint32_t first_round, first_reader, first_source, first_word, first_expected, first_got;
} wgs_selftest_result;

int wgs_barrier_selftest(wgs_device_t *dev, const wgs_selftest_config *cfg,
                         wgs_selftest_result *res);

/* The tools' kernels as wgsync builds them, for inspection (`wgsync kernels` prints each one's
 * resources and the build log): wgs_micro (the occupancy microbenchmark), wgs_mp (the
 * self-test), wgs_latency (the latency probe), and on OpenCL wgs_calibrate (the spin clock). On
 * a CUDA device they are the kernels nvcc compiled into libwgsync_cuda. Owned by the device:
 * do not release it. */
int wgs_tools_program(wgs_device_t *dev, int checked, wgs_program_t **prog);

/* Grid-barrier latency: `rounds` bare barriers over exactly `groups` groups (discovery off),
 * timed on the device; `repeats` runs after one warm-up; per-barrier median, min, max. A short
 * checked run first makes a group count above the occupancy bound a WGS_EDEADLOCK, not a hang. */
typedef struct {
  size_t local_size;
  uint32_t groups;   /* 0: the compute-unit count */
  uint32_t rounds;   /* 0: 2000 */
  uint32_t repeats;  /* 0: 7 */
  wgs_barrier barrier;
  int split;         /* the split barrier: arrive immediately followed by wait */
} wgs_latency_config;
typedef struct {
  double median_us, min_us, max_us;
  uint32_t groups, rounds, repeats;
} wgs_latency_result;
int wgs_barrier_latency(wgs_device_t *dev, const wgs_latency_config *cfg, wgs_latency_result *res);

/* ---- SPIR-V split barriers (SPV_INTEL_split_barrier, cl_intel_split_work_group_barrier's SPIR-V environment section) ------------- */

typedef struct {
  size_t offset;      /* word offset of the instruction in the module */
  size_t index;       /* instruction number (0 = first after the header) */
  uint32_t opcode;
  char message[256];  /* what is wrong and what was expected */
} wgs_spirv_issue;

/* Checks every OpControlBarrierArriveINTEL / WaitINTEL (6142 / 6143; the EXT names under
 * SPV_EXT_split_barrier) against the OpenCL environment (Kernel modules) or what Vulkan allows
 * (Shader modules: QueueFamily scope and the Vulkan memory model's availability and visibility
 * bits too): Execution scope Workgroup; Memory scope one valid for OpControlBarrier; Arrive's
 * order Release, Wait's Acquire, plus storage-class bits; image memory only at Workgroup scope;
 * the capability (6141) and SPV_INTEL_split_barrier or SPV_EXT_split_barrier declared; and, in
 * straight-line code, a wait before any arrive or two arrives without a wait. Writes up to cap
 * issues and their total in *count. Returns WGS_OK when the binary could be read (issues or
 * not), WGS_ESPIRV naming the offset when it could not. */
int wgs_spirv_validate(const uint32_t *words, size_t n_words, wgs_spirv_issue *issues, size_t cap,
                       size_t *count);
/* 1 in *uses when the module declares or uses split barriers. */
int wgs_spirv_uses_split_barrier(const uint32_t *words, size_t n_words, int *uses);
/* Rewrites a valid module for a consumer without the extension (see src/spirv/spirv.c for the
 * mapping and why it is safe). *out is malloc'd (free with wgs_spirv_free). A module with
 * violations gives WGS_EVALIDATION and the first one in wgs_last_error(). */
int wgs_spirv_lower(const uint32_t *words, size_t n_words, uint32_t **out, size_t *out_words);
void wgs_spirv_free(uint32_t *words);

/* Builds a SPIR-V program (clCreateProgramWithIL). When the module uses split barriers and the
 * device lacks cl_intel_split_work_group_barrier, the module is lowered first. */
int wgs_program_build_il(wgs_device_t *dev, const uint32_t *words, size_t n_words,
                         const char *options, wgs_program_t **out);

/* Device lib source that wgs_program_build puts in front of user code (for users who build
 * their own programs: see wgsync_opencl.h). It ends with `#line 1 "user"`, so that checked
 * builds name the user's own line numbers when the user's source follows it. */
const char *wgs_device_library_source(void);

#ifdef __cplusplus
}
#endif
#endif
