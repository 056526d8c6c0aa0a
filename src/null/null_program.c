/* The null backend's programs, kernels and buffers (null_internal.h): a program's source is
 * kept by no one and compiled by nothing; any kernel name is a kernel that runs no code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "null_internal.h"

int wgs__null_program_build(wgs_device_t *dev, const char *source, const char *options,
                            unsigned flags, wgs_program_t **out)
{
  (void)source, (void)options;
  wgs__null_program *p = calloc(1, sizeof *p);
  if (!p)
    return wgs__fail(WGS_ENOMEM, "wgs_program_build: out of memory");
  p->ops = &wgs__null_ops;
  p->dev = dev;
  p->refs = 1;
  p->flags = flags;
  wgs__null_dev_retain(dev);
  *out = (wgs_program_t *)(void *)p;
  return WGS_OK;
}

void wgs__null_program_release(wgs_program_t *pp)
{
  wgs__null_program *p = (wgs__null_program *)(void *)pp;
  if (__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) > 0)
    return;
  wgs__null_dev_release(p->dev);
  free(p);
}

const char *wgs__null_program_build_log(const wgs_program_t *p)
{
  (void)p;
  return "null device: nothing is compiled";
}

int wgs__null_kernel_create(wgs_program_t *pp, const char *name, wgs_kernel_t **out)
{
  wgs__null_program *p = (wgs__null_program *)(void *)pp;
  wgs__null_kernel *k = calloc(1, sizeof *k);
  if (!k)
    return wgs__fail(WGS_ENOMEM, "wgs_kernel_create: out of memory");
  k->ops = &wgs__null_ops;
  k->dev = p->dev;
  k->prog = p;
  __atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED); /* a kernel keeps its program */
  snprintf(k->name, sizeof k->name, "%s", name);
  *out = (wgs_kernel_t *)(void *)k;
  return WGS_OK;
}

void wgs__null_kernel_release(wgs_kernel_t *pk)
{
  wgs__null_kernel *k = (wgs__null_kernel *)(void *)pk;
  wgs__null_program_release((wgs_program_t *)(void *)k->prog);
  free(k);
}

/* A kernel that runs no code takes nothing but the groups it is launched with. */
int wgs__null_kernel_resources(wgs_kernel_t *k, wgs_kernel_resources *out)
{
  out->max_local_size = wgs__head(wgs__object(k)->dev)->info.max_work_group_size;
  out->local_mem_bytes = 0;
  out->private_mem_bytes = 0;
  out->registers = 0;
  return WGS_OK;
}

int wgs__null_kernel_set_arg(wgs_kernel_t *k, unsigned index, size_t size, const void *value)
{
  (void)k, (void)index, (void)size, (void)value; /* no code reads them */
  return WGS_OK;
}

int wgs__null_kernel_set_arg_buffer(wgs_kernel_t *k, unsigned index, wgs_buffer_t *b)
{
  (void)k, (void)index, (void)b;
  return WGS_OK;
}

int wgs__null_buffer_create(wgs_device_t *dev, size_t bytes, wgs_buffer_t **out)
{
  wgs__null_buffer *b = calloc(1, sizeof *b);
  unsigned char *m = calloc(1, bytes);
  if (!b || !m) {
    free(b);
    free(m);
    return wgs__fail(WGS_ENOMEM, "wgs_buffer_create: out of memory (%zu bytes)", bytes);
  }
  b->ops = &wgs__null_ops;
  b->dev = dev;
  b->data = m;
  b->bytes = bytes;
  wgs__null_dev_retain(dev);
  *out = (wgs_buffer_t *)(void *)b;
  return WGS_OK;
}

void wgs__null_buffer_release(wgs_buffer_t *pb)
{
  wgs__null_buffer *b = (wgs__null_buffer *)(void *)pb;
  free(b->data);
  wgs__null_dev_release(b->dev);
  free(b);
}

int wgs__null_buffer_write(wgs_buffer_t *pb, size_t off, size_t bytes, const void *src)
{
  wgs__null_buffer *b = (wgs__null_buffer *)(void *)pb; /* (the core checked the range) */
  memcpy(b->data + off, src, bytes);
  return WGS_OK;
}

int wgs__null_buffer_read(wgs_buffer_t *pb, size_t off, size_t bytes, void *dst)
{
  wgs__null_buffer *b = (wgs__null_buffer *)(void *)pb; /* (the core checked the range) */
  memcpy(dst, b->data + off, bytes);
  return WGS_OK;
}
