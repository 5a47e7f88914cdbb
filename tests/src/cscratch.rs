//! Generated C built for real: each model's `.c` compiled as its own translation unit with
//! the strictest flags a C user would set (`-std=c99 -Wall -Wextra -Werror -pedantic`), and a
//! driver that runs jobs by the protocol of [`crate::scratch`]. `CC` picks the compiler
//! (default `cc`), `CELLC_SCRATCH_CFLAGS` adds flags to every compile and the link
//! (`-march=native`, `-fsanitize=address,undefined`).
use crate::scratch::{Job, Scratch};
use cellc::emit::c::CFiles;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The flags every generated file must compile warning-free with.
pub const STRICT: &[&str] = &["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic"];

/// The driver: reads a job, checks that the model refuses too few inputs and a short input
/// before writing anything, runs it and writes the outputs.
const DRIVER: &str = r#"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*run_fn)(const float *const *, const size_t *, size_t, float *const *, const size_t *, size_t);
typedef int (*set_weights_fn)(const float *const *, const size_t *, size_t);

struct module {
    run_fn run;
    /* Sets the weights given at run time; a model without them takes none. */
    set_weights_fn set_weights;
    /* Whether the model takes weights at run time. */
    int weights;
    int err_weights_not_set;
    int err_input_count;
    const char *(*status_name)(int);
    /* Makes the module's model value new (zero, as a static one starts): each job runs on
       its own, as if no job had run before it (a stateful model's variables). */
    void (*fresh)(void);
};

/* MODULES */

/* A raw little-endian .f32 file, or an .i32 one (sequence lengths) as floats. */
static float *read_values(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    long bytes;
    unsigned char *raw;
    float *v;
    size_t i, n;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    bytes = ftell(f);
    fseek(f, 0, SEEK_SET);
    n = (size_t)bytes / 4;
    raw = malloc((size_t)bytes + 1);
    v = malloc(n * sizeof *v + 1);
    if (!raw || !v || fread(raw, 1, (size_t)bytes, f) != (size_t)bytes) {
        fclose(f);
        return NULL;
    }
    fclose(f);
    for (i = 0; i < n; ++i) {
        unsigned long w = (unsigned long)raw[4 * i] | (unsigned long)raw[4 * i + 1] << 8 |
                          (unsigned long)raw[4 * i + 2] << 16 | (unsigned long)raw[4 * i + 3] << 24;
        if (strstr(path, ".i32")) {
            long s = w >= 0x80000000ul ? (long)(w - 0x80000000ul) - 0x7fffffffl - 1 : (long)w;
            v[i] = (float)s;
        } else {
            uint32_t bits = (uint32_t)w;
            memcpy(&v[i], &bits, 4);
        }
    }
    free(raw);
    *len = n;
    return v;
}

static int run_job(const struct module *m, const char *job)
{
    char line[4096];
    const float *ins[64], *frame_ins[64];
    float *outs[64], *frame_outs[64], *state[64];
    size_t in_lens[64], out_lens[64], frame_in[64], frame_out[64], ni = 0, no = 0, k, j, f, frames = 1, nc = 0;
    size_t carry_out[64], carry_in[64], weight_lens[64], nw = 0;
    const float *weights[64];
    char out_paths[64][1024];
    int status, carried[64] = {0};
    FILE *f_job = fopen(job, "r");
    if (!f_job) { fprintf(stderr, "job %s: cannot open\n", job); return 1; }
    m->fresh();
    while (fgets(line, sizeof line, f_job)) {
        line[strcspn(line, "\n")] = 0;
        if (strncmp(line, "in ", 3) == 0 && ni < 64) {
            ins[ni] = read_values(line + 3, &in_lens[ni]);
            if (!ins[ni]) { fprintf(stderr, "job %s: cannot read %s\n", job, line + 3); return 1; }
            ++ni;
        } else if (strncmp(line, "weight ", 7) == 0 && nw < 64) {
            weights[nw] = read_values(line + 7, &weight_lens[nw]);
            if (!weights[nw]) { fprintf(stderr, "job %s: cannot read %s\n", job, line + 7); return 1; }
            ++nw;
        } else if (strncmp(line, "out ", 4) == 0 && no < 64) {
            char *sp = strchr(line + 4, ' ');
            if (!sp) { fprintf(stderr, "job %s: bad line\n", job); return 1; }
            *sp = 0;
            out_lens[no] = (size_t)strtoul(line + 4, NULL, 10);
            strncpy(out_paths[no], sp + 1, sizeof out_paths[no] - 1);
            out_paths[no][sizeof out_paths[no] - 1] = 0;
            outs[no] = malloc(out_lens[no] * sizeof(float) + 1);
            for (j = 0; j < out_lens[no]; ++j) outs[no][j] = NAN;
            ++no;
        } else if (strncmp(line, "frames ", 7) == 0) {
            frames = (size_t)strtoul(line + 7, NULL, 10);
        } else if (strncmp(line, "carry ", 6) == 0 && nc < 64) {
            char *end;
            carry_out[nc] = (size_t)strtoul(line + 6, &end, 10);
            carry_in[nc] = (size_t)strtoul(end, NULL, 10);
            ++nc;
        }
    }
    fclose(f_job);
    if (frames == 0) frames = 1;
    for (k = 0; k < nc; ++k) if (carry_in[k] < 64) carried[carry_in[k]] = 1;
    /* Each frame reads its part of an input (the whole of a carried one, which later frames
       take from the output carried into it) and writes its part of each output. */
    for (k = 0; k < ni; ++k) {
        frame_in[k] = carried[k] ? in_lens[k] : in_lens[k] / frames;
        state[k] = NULL;
        if (carried[k]) {
            state[k] = malloc(in_lens[k] * sizeof(float) + 1);
            memcpy(state[k], ins[k], in_lens[k] * sizeof(float));
        }
    }
    for (k = 0; k < no; ++k) frame_out[k] = out_lens[k] / frames;
    for (f = 0; f < frames; ++f) {
        for (k = 0; k < ni; ++k) frame_ins[k] = carried[k] ? state[k] : ins[k] + f * frame_in[k];
        for (k = 0; k < no; ++k) frame_outs[k] = outs[k] + f * frame_out[k];
        if (f == 0) {
            /* Weights given at run time are set once, before the first run, which fails until
               they are; runs read the packed copy, never these arrays. */
            if (m->weights) {
                if (m->run(frame_ins, frame_in, ni, frame_outs, frame_out, no) != m->err_weights_not_set) {
                    fprintf(stderr, "job %s: ran before its weights were set\n", job);
                    return 1;
                }
                if (nw > 0 && m->set_weights(weights, weight_lens, nw - 1) == 0) {
                    fprintf(stderr, "job %s: accepted too few weights\n", job);
                    return 1;
                }
            }
            status = m->set_weights(weights, weight_lens, nw);
            if (status != 0) { fprintf(stderr, "job %s: set_weights: %s\n", job, m->status_name(status)); return 1; }
            /* Wrong counts and lengths must be refused before anything is written. */
            if (ni > 0 && m->run(frame_ins, frame_in, ni - 1, frame_outs, frame_out, no) != m->err_input_count) {
                fprintf(stderr, "job %s: accepted too few inputs\n", job);
                return 1;
            }
            if (ni > 0 && frame_in[0] > 0) {
                frame_in[0] -= 1;
                status = m->run(frame_ins, frame_in, ni, frame_outs, frame_out, no);
                frame_in[0] += 1;
                if (status == 0) { fprintf(stderr, "job %s: accepted an input one element short\n", job); return 1; }
            }
            for (k = 0; k < no; ++k) {
                for (j = 0; j < out_lens[k]; ++j) {
                    if (!isnan(outs[k][j])) { fprintf(stderr, "job %s: wrote outputs before refusing\n", job); return 1; }
                }
            }
        }
        status = m->run(frame_ins, frame_in, ni, frame_outs, frame_out, no);
        if (status != 0) { fprintf(stderr, "job %s: %s\n", job, m->status_name(status)); return 1; }
        for (k = 0; k < nc; ++k) {
            if (carry_out[k] >= no || carry_in[k] >= ni || frame_out[carry_out[k]] != frame_in[carry_in[k]]) {
                fprintf(stderr, "job %s: bad carry\n", job);
                return 1;
            }
            memcpy(state[carry_in[k]], frame_outs[carry_out[k]], frame_out[carry_out[k]] * sizeof(float));
        }
    }
    for (k = 0; k < no; ++k) {
        FILE *o = fopen(out_paths[k], "wb");
        for (j = 0; o && j < out_lens[k]; ++j) {
            uint32_t bits;
            unsigned char b[4];
            memcpy(&bits, &outs[k][j], 4);
            b[0] = (unsigned char)bits; b[1] = (unsigned char)(bits >> 8);
            b[2] = (unsigned char)(bits >> 16); b[3] = (unsigned char)(bits >> 24);
            fwrite(b, 1, 4, o);
        }
        if (o) fclose(o);
    }
    for (k = 0; k < ni; ++k) {
        free((void *)ins[k]);
        free(state[k]);
    }
    for (k = 0; k < no; ++k) free(outs[k]);
    for (k = 0; k < nw; ++k) free((void *)weights[k]);
    return 0;
}

int main(int argc, char **argv)
{
    int i, failed = 0;
    for (i = 1; i + 1 < argc; i += 2) {
        size_t k = (size_t)strtoul(argv[i], NULL, 10);
        if (k >= sizeof MODULES / sizeof MODULES[0]) { fprintf(stderr, "no such module\n"); failed = 1; continue; }
        failed |= run_job(&MODULES[k], argv[i + 1]);
    }
    return failed;
}
"#;

/// The compiler: `CC`, else `cc`.
pub fn compiler() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".into())
}

/// Whether the C the suite builds fuses multiply-adds: the compiler, with [`STRICT`] and
/// `CELLC_SCRATCH_CFLAGS`, defines `__FP_FAST_FMAF` (so `<math.h>` defines `FP_FAST_FMAF`,
/// which the generated C fuses under). `None` when the compiler cannot be asked, or where
/// the C picks its kernels' copies by the processor (GCC on x86-64 without AVX2: the copies
/// for AVX2 and AVX-512 fuse, the baseline not).
pub fn fuses() -> Option<bool> {
    let out = Command::new(compiler())
        .args(STRICT)
        .args(extra_flags())
        .args(["-dM", "-E", "-x", "c", "-"])
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    let macros = String::from_utf8_lossy(&out.stdout);
    let has = |m: &str| macros.contains(&format!("#define {m} "));
    let dispatches = has("__x86_64__")
        && has("__GNUC__")
        && !has("__clang__")
        && !has("__AVX2__")
        && !extra_flags().iter().any(|f| f == "-DCELLC_NO_DISPATCH" || f == "-DCELLC_PORTABLE");
    (out.status.success() && !dispatches).then(|| has("__FP_FAST_FMAF"))
}

/// The extra flags of `CELLC_SCRATCH_CFLAGS`, split at spaces.
fn extra_flags() -> Vec<String> {
    std::env::var("CELLC_SCRATCH_CFLAGS").unwrap_or_default().split_whitespace().map(str::to_owned).collect()
}

impl Scratch {
    /// Builds the Rust `sources` and the C `models` (module `k` of each the same model) and
    /// runs `jobs` on both: the Rust writes the jobs' outputs, the C the same paths with the
    /// extension `c.f32`. Returns the C's jobs (where its outputs are).
    pub fn run_rust_and_c(&self, sources: &[String], models: &[CFiles], jobs: &[Job]) -> Result<Vec<Job>, String> {
        let exe = self.build(sources)?;
        self.run(&exe, jobs)?;
        let c_jobs: Vec<Job> = jobs
            .iter()
            .map(|j| Job {
                outputs: j.outputs.iter().map(|(p, n)| (p.with_extension("c.f32"), *n)).collect(),
                ..j.clone()
            })
            .collect();
        let c_exe = self.build_c(models)?;
        self.run(&c_exe, &c_jobs)?;
        Ok(c_jobs)
    }

    /// Writes `models` (module `k` compiled with the name `m{k}` and the header `m{k}.h`)
    /// and the driver, compiles each file with [`STRICT`] flags (skipping files unchanged
    /// since their last compile with the same flags) and links. Returns the driver's path,
    /// or the compiler's output.
    pub fn build_c(&self, models: &[CFiles]) -> Result<PathBuf, String> {
        let dir = self.dir().join("c");
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let mut modules = String::new();
        let mut table = String::from("static const struct module MODULES[] = {\n");
        for (k, m) in models.iter().enumerate() {
            crate::scratch::write_if_changed(&dir.join(format!("m{k}.h")), &m.header)?;
            crate::scratch::write_if_changed(&dir.join(format!("m{k}.c")), &m.source)?;
            let weights = m.header.contains(&format!("#define M{k}_WEIGHT_COUNT "));
            let set_weights = if weights {
                format!("return m{k}_set_weights(&model_m{k}, w, wl, nw);")
            } else {
                format!("(void)w; (void)wl; return nw == 0 ? M{k}_OK : M{k}_ERR_INPUT_COUNT;")
            };
            let _ = writeln!(
                modules,
                "#include \"m{k}.h\"\n\
                 static m{k}_model model_m{k};\n\
                 static int call_m{k}(const float *const *i, const size_t *il, size_t ni, float *const *o, const size_t *ol, size_t no)\n\
                 {{\n    return m{k}_run(&model_m{k}, i, il, ni, o, ol, no);\n}}\n\
                 static int weights_m{k}(const float *const *w, const size_t *wl, size_t nw)\n\
                 {{\n    {set_weights}\n}}\n\
                 static void fresh_m{k}(void) {{ memset(&model_m{k}, 0, sizeof model_m{k}); }}"
            );
            let _ = writeln!(
                table,
                "    {{call_m{k}, weights_m{k}, {}, M{k}_ERR_WEIGHTS_NOT_SET, M{k}_ERR_INPUT_COUNT, m{k}_status_name, fresh_m{k}}},",
                i32::from(weights)
            );
        }
        table.push_str("};\n");
        // Each module's header and a function running its model, then the table of them.
        let driver = DRIVER.replacen("/* MODULES */", &format!("{modules}\n{table}"), 1);
        crate::scratch::write_if_changed(&dir.join("main.c"), &driver)?;
        let extra = extra_flags();
        let stamp = format!("{} {} {}", compiler(), STRICT.join(" "), extra.join(" "));
        // Each object records the flags it was compiled with: a build of fewer modules under
        // other flags (a sanitizer's) leaves the rest as they were.
        let stamp_of = |u: &str| dir.join(format!("{u}.flags"));
        let same_flags = |u: &str| std::fs::read_to_string(stamp_of(u)).is_ok_and(|s| s == stamp);
        let mut units: Vec<String> = (0..models.len()).map(|k| format!("m{k}")).collect();
        units.push("main".into());
        // A unit depends on its source and the headers it includes: its own, or (the driver)
        // every module's.
        let headers = |u: &str| -> Vec<PathBuf> {
            match u {
                "main" => (0..models.len()).map(|k| dir.join(format!("m{k}.h"))).collect(),
                _ => vec![dir.join(format!("{u}.h"))],
            }
        };
        let todo: Vec<&String> = units
            .iter()
            .filter(|u| {
                let obj = dir.join(format!("{u}.o"));
                !same_flags(u)
                    || !up_to_date(&dir.join(format!("{u}.c")), &obj)
                    || !headers(u).iter().all(|h| up_to_date(h, &obj))
            })
            .collect();
        for u in &todo {
            let _ = std::fs::remove_file(stamp_of(u));
        }
        let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
        for chunk in todo.chunks(workers) {
            let children: Vec<_> = chunk
                .iter()
                .map(|u| {
                    let mut cmd = Command::new(compiler());
                    cmd.args(STRICT).args(&extra).arg("-c").arg(format!("{u}.c")).arg("-o").arg(format!("{u}.o"));
                    cmd.current_dir(&dir)
                        .stdout(Stdio::piped())
                        .stderr(Stdio::piped())
                        .spawn()
                        .map_err(|e| format!("cannot run {}: {e}", compiler()))
                })
                .collect();
            for (u, child) in chunk.iter().zip(children) {
                let out = child?.wait_with_output().map_err(|e| e.to_string())?;
                if !out.status.success() {
                    return Err(format!(
                        "{u}.c does not compile with {} {}:\n{}",
                        compiler(),
                        STRICT.join(" "),
                        String::from_utf8_lossy(&out.stderr)
                    ));
                }
                std::fs::write(stamp_of(u), &stamp).map_err(|e| e.to_string())?;
            }
        }
        let exe = dir.join("driver");
        let out = Command::new(compiler())
            .args(units.iter().map(|u| format!("{u}.o")))
            .args(&extra)
            .arg("-lm")
            .arg("-o")
            .arg(&exe)
            .current_dir(&dir)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", compiler()))?;
        if !out.status.success() {
            return Err(format!("the C driver does not link:\n{}", String::from_utf8_lossy(&out.stderr)));
        }
        Ok(exe)
    }
}

/// Whether `obj` was built after `src` last changed.
fn up_to_date(src: &Path, obj: &Path) -> bool {
    let time = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    matches!((time(src), time(obj)), (Some(s), Some(o)) if o > s)
}
