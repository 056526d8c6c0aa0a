/*
 * The host clock, for CPU devices without a clock of their own (PoCL, Intel's CPU runtime):
 * OpenCL C has no clock, and spin iterations calibrated once do not measure time on a CPU whose
 * cores other threads share (bounds fired several times early on one runtime and several times
 * late on another). So a state on such a device lives in host memory the device uses
 * directly (CL_MEM_USE_HOST_PTR), and while launches run, one thread per device writes the
 * microseconds since it started into each state's WGS_CFG_CLOCK word every 100 us. The device
 * reads that word to bound its spins and time the close wait (device/common/wgs_core.h).
 *
 * Whether a device really reads the host memory (zero copy) is checked once per device with a
 * kernel that waits to see the word move (wgs__clock_check, a tools kernel: cl_tools.c); where
 * it does not, the launches fall back to calibrated iterations, as before.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cl_internal.h"

#define TICK_US 100

static double mono_us(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int wgs__clock_wanted(const wgs_device_t *dev) { return dev->info.is_cpu && !dev->info.has_timer; }

void *wgs__clock_host_alloc(size_t bytes)
{
  size_t round = (bytes + 4095u) / 4096u * 4096u; /* page-aligned: zero copy on CPU runtimes */
  void *p = aligned_alloc(4096, round);
  if (p)
    memset(p, 0, round);
  return p;
}

static void tick_locked(wgs_device_t *dev)
{
  uint32_t now = (uint32_t)(uint64_t)(mono_us() - dev->clock_base);
  for (wgs_state_t *st = dev->clock_states; st; st = st->clock_next)
    __atomic_store_n(&st->host[WGS_G_CONFIG + WGS_CFG_CLOCK], now, __ATOMIC_RELAXED);
}

/* Ticks while any launch on a registered state has not been collected; sleeps otherwise. */
static void *clock_main(void *arg)
{
  wgs_device_t *dev = arg;
  pthread_mutex_lock(&dev->clock_mu);
  while (!dev->clock_stop) {
    if (dev->clock_inflight <= 0) {
      pthread_cond_wait(&dev->clock_cv, &dev->clock_mu);
      continue;
    }
    tick_locked(dev);
    pthread_mutex_unlock(&dev->clock_mu);
    struct timespec d = {0, TICK_US * 1000L};
    nanosleep(&d, NULL);
    pthread_mutex_lock(&dev->clock_mu);
  }
  pthread_mutex_unlock(&dev->clock_mu);
  return NULL;
}

int wgs__clock_register(wgs_device_t *dev, wgs_state_t *st)
{
  pthread_mutex_lock(&dev->clock_mu);
  int rc = WGS_OK;
  if (!dev->clock_running) {
    dev->clock_base = mono_us();
    if (pthread_create(&dev->clock_thread, NULL, clock_main, dev) != 0)
      rc = wgs__fail(WGS_EBACKEND, "wgs_state_create: cannot start the host clock's thread");
    else
      dev->clock_running = 1;
  }
  if (rc == WGS_OK) {
    st->clock_next = dev->clock_states;
    dev->clock_states = st;
    tick_locked(dev);
  }
  pthread_mutex_unlock(&dev->clock_mu);
  return rc;
}

void wgs__clock_unregister(wgs_device_t *dev, wgs_state_t *st)
{
  pthread_mutex_lock(&dev->clock_mu);
  for (wgs_state_t **p = &dev->clock_states; *p; p = &(*p)->clock_next)
    if (*p == st) {
      *p = st->clock_next;
      break;
    }
  dev->clock_inflight -= st->clock_pending;
  st->clock_pending = 0;
  pthread_mutex_unlock(&dev->clock_mu);
}

void wgs__clock_launch(wgs_device_t *dev, wgs_state_t *st)
{
  pthread_mutex_lock(&dev->clock_mu);
  st->clock_pending++;
  if (dev->clock_inflight++ == 0) {
    tick_locked(dev); /* the word is current before the kernel starts */
    pthread_cond_signal(&dev->clock_cv);
  }
  pthread_mutex_unlock(&dev->clock_mu);
}

void wgs__clock_collect(wgs_device_t *dev, wgs_state_t *st)
{
  pthread_mutex_lock(&dev->clock_mu);
  dev->clock_inflight -= st->clock_pending;
  st->clock_pending = 0;
  pthread_mutex_unlock(&dev->clock_mu);
}

void wgs__clock_stop(wgs_device_t *dev)
{
  if (!dev->clock_running)
    return;
  pthread_mutex_lock(&dev->clock_mu);
  dev->clock_stop = 1;
  pthread_cond_signal(&dev->clock_cv);
  pthread_mutex_unlock(&dev->clock_mu);
  pthread_join(dev->clock_thread, NULL);
  dev->clock_running = 0;
}
