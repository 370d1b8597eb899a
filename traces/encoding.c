/* encoding.c - codec and bound settings over a trace's metrics, for every metric or for one by
 * name (lbs_encoding in lbs_traces.h): what `lbsim trace gen|import|recode` take as --bound and
 * --codec. */
#include "lbs_traces.h"

#include <stdio.h>
#include <string.h>

/* One "[METRIC=]VALUE" setting; is_bound picks how VALUE is read. */
static lbs_err add(lbs_encoding *enc, const char *arg, int is_bound) {
  if (enc->nset == LBS_ENCODING_MAX_SETS)
    return lbs_fail(LBS_RANGE, "at most %d settings", LBS_ENCODING_MAX_SETS);
  lbs_encoding_set s;
  memset(&s, 0, sizeof s);
  const char *eq = strchr(arg, '='), *val = arg;
  if (eq) {
    if ((size_t)(eq - arg) >= sizeof s.metric || eq == arg)
      return lbs_fail(LBS_PARSE, "'%s': bad metric name", arg);
    memcpy(s.metric, arg, (size_t)(eq - arg));
    val = eq + 1;
  }
  lbs_err e;
  if (is_bound) {
    if ((e = lbs_bound_parse(val, &s.bound))) return e;
    s.has_bound = 1;
  } else {
    if ((e = lbs_codec_from_name(val, &s.codec))) return e;
    s.has_codec = 1;
  }
  enc->set[enc->nset++] = s;
  return LBS_OK;
}

lbs_err lbs_encoding_add_bound(lbs_encoding *enc, const char *arg) { return add(enc, arg, 1); }
lbs_err lbs_encoding_add_codec(lbs_encoding *enc, const char *arg) { return add(enc, arg, 0); }

int lbs_encoding_per_metric(const lbs_encoding *enc) {
  for (int i = 0; enc && i < enc->nset; i++)
    if (enc->set[i].metric[0]) return 1;
  return 0;
}

lbs_err lbs_encoding_resolve(const lbs_encoding *enc, const char *name, lbs_codec dcodec,
                             lbs_bound dbound, lbs_codec *codec, lbs_bound *bound) {
  *codec = dcodec;
  *bound = dbound;
  for (int level = 0; enc && level < 2; level++) {
    lbs_codec c = LBS_CODEC_DEFAULT;
    lbs_bound b = {LBS_BOUND_LOSSLESS, 0};
    int has_c = 0, has_b = 0;
    for (int i = 0; i < enc->nset; i++) {
      const lbs_encoding_set *s = &enc->set[i];
      if (level == 0 ? s->metric[0] != '\0' : strcmp(s->metric, name)) continue;
      if (s->has_codec) c = s->codec, has_c = 1;
      if (s->has_bound) b = s->bound, has_b = 1;
    }
    lbs_encoding_apply(codec, bound, has_c ? &c : NULL, has_b ? &b : NULL);
  }
  if (lbs_codec_check(*codec, *bound))
    return lbs_fail(LBS_INVAL, "metric '%s': %s", name, lbs_errmsg());
  return LBS_OK;
}

lbs_err lbs_encoding_check_names(const lbs_encoding *enc, const char *const *names, int n) {
  for (int i = 0; enc && i < enc->nset; i++) {
    if (!enc->set[i].metric[0]) continue;
    int found = 0;
    for (int m = 0; m < n; m++) found |= !strcmp(names[m], enc->set[i].metric);
    if (found) continue;
    char list[1024] = "";
    size_t len = 0;
    for (int m = 0; m < n && len < sizeof list; m++)
      len += (size_t)snprintf(list + len, sizeof list - len, " %s", names[m]);
    return lbs_fail(LBS_NOTFOUND, "no metric '%s' (metrics:%s)", enc->set[i].metric, list);
  }
  return LBS_OK;
}
