//! The lecture's streams program: 20 chunks of 1 Mi ints, each uploaded (a, b), combined by
//! a kernel into c, and downloaded, with page-locked (pinned) fields:
//!
//! - one stream;
//! - two streams, issued depth-first (all of chunk k on stream 0, then all of chunk k+1 on
//!   stream 1): the lecture's first attempt;
//! - two streams, issued breadth-first (both uploads of a, then of b, both kernels, both
//!   downloads): the lecture's fix, so that no copy engine queue holds a copy behind one
//!   that must wait for a kernel.
//!
//! Each mode is timed by events on its streams (warm-up repetition, then the median), and
//! every element of c is checked after every repetition. The per-chunk timeline (upload,
//! kernel, download, each alone) says how much overlap can gain on this machine.
//!
//! `cargo run --release --example streams_overlap [-- --chunks 20 --chunk-ints 1048576 --reps 10]`

mod common;

use common::arg;

use ongpu::prelude::*;
use ongpu::{Event, Stream};

/// The chunks: a and b are inputs, c the output, all pinned.
struct Data {
    a: Vec<Field<i32, AoS>>,
    b: Vec<Field<i32, AoS>>,
    c: Vec<Field<i32, AoS>>,
    len: usize,
}

/// Input values of repetition `rep`, in 0..total like the lecture's random ints.
fn input(which: u64, rep: u64, i: usize, total: usize) -> i32 {
    let h = (i as u64 ^ (which << 40) ^ (rep << 48)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    ((h >> 33) % total as u64) as i32
}

/// What the kernel computes for one site (the lecture's arithmetic "does not matter").
fn expected(a: i32, b: i32) -> i32 {
    (a / 3 + b / 3) / 2 + (a ^ b) % 7
}

fn kernel(a: &Field<i32, AoS>, b: &Field<i32, AoS>, c: &mut Field<i32, AoS>) -> ongpu::Result<()> {
    on_gpu!({
        c = (a / 3 + b / 3) / 2 + (a ^ b) % 7;
    })
}

impl Data {
    fn new(chunks: usize, len: usize) -> ongpu::Result<Self> {
        let make = || -> ongpu::Result<Vec<Field<i32, AoS>>> {
            (0..chunks).map(|_| Field::zeros(len).pinned()).collect()
        };
        Ok(Data {
            a: make()?,
            b: make()?,
            c: make()?,
            len,
        })
    }

    /// New inputs (the host copies become the current ones, so they are uploaded again) and
    /// a poisoned host copy of c.
    fn refill(&mut self, rep: u64) -> ongpu::Result<()> {
        let total = self.a.len() * self.len;
        for k in 0..self.a.len() {
            for (i, v) in self.a[k].as_slice_mut()?.iter_mut().enumerate() {
                *v = input(1, rep, k * self.len + i, total);
            }
            for (i, v) in self.b[k].as_slice_mut()?.iter_mut().enumerate() {
                *v = input(2, rep, k * self.len + i, total);
            }
            self.c[k].as_slice_mut()?.fill(-1);
        }
        Ok(())
    }

    /// Every element of the first `chunks` chunks of c.
    fn check(&self, chunks: usize, rep: u64, what: &str) -> ongpu::Result<()> {
        let total = self.a.len() * self.len;
        for k in 0..chunks {
            let got = self.c[k].to_vec()?; // waits for the chunk's download
            for (i, &g) in got.iter().enumerate() {
                let j = k * self.len + i;
                let want = expected(input(1, rep, j, total), input(2, rep, j, total));
                assert_eq!(g, want, "{what}: chunk {k}, element {i}");
            }
        }
        Ok(())
    }
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    OneStream,
    DepthFirst,
    BreadthFirst,
}

/// Queues all chunks in `mode`; returns the device time from the first copy to the last.
fn run_mode(mode: Mode, d: &mut Data, s: &[Stream; 2]) -> ongpu::Result<f32> {
    let start = s[0].record()?;
    s[1].wait_for(&start)?;
    let chunks = d.a.len();
    let Data { a, b, c, .. } = d;
    let mut whole_chunk = |k: usize, st: &Stream| -> ongpu::Result<()> {
        a[k].upload_async(st)?;
        b[k].upload_async(st)?;
        st.scope(|| kernel(&a[k], &b[k], &mut c[k]))?;
        c[k].download_async(st)
    };
    match mode {
        Mode::OneStream => {
            for k in 0..chunks {
                whole_chunk(k, &s[0])?;
            }
        }
        Mode::DepthFirst => {
            for k in 0..chunks {
                whole_chunk(k, &s[k % 2])?;
            }
        }
        Mode::BreadthFirst => {
            for k0 in (0..chunks).step_by(2) {
                let pair: Vec<(usize, &Stream)> =
                    (k0..chunks.min(k0 + 2)).map(|k| (k, &s[k % 2])).collect();
                for &(k, st) in &pair {
                    a[k].upload_async(st)?;
                }
                for &(k, st) in &pair {
                    b[k].upload_async(st)?;
                }
                for &(k, st) in &pair {
                    st.scope(|| kernel(&a[k], &b[k], &mut c[k]))?;
                }
                for &(k, st) in &pair {
                    c[k].download_async(st)?;
                }
            }
        }
    }
    let end1 = s[1].record()?;
    s[0].wait_for(&end1)?;
    let end = s[0].record()?;
    end.synchronize()?;
    start.elapsed_ms(&end)
}

fn median(v: &mut [f32]) -> f32 {
    v.sort_by(f32::total_cmp);
    v[v.len() / 2]
}

/// Device time of `f`'s work queued on `s`.
fn timed(s: &Stream, f: impl FnOnce() -> ongpu::Result<()>) -> ongpu::Result<f32> {
    let start: Event = s.record()?;
    f()?;
    let end = s.record()?;
    end.synchronize()?;
    start.elapsed_ms(&end)
}

/// Per chunk, each step alone on one stream: (upload a and b, kernel, download c), medians.
fn timeline(d: &mut Data, s: &Stream, reps: usize) -> ongpu::Result<(f32, f32, f32)> {
    let (mut up, mut k, mut down) = (Vec::new(), Vec::new(), Vec::new());
    for rep in 0..=reps {
        d.refill(1000 + rep as u64)?;
        let Data { a, b, c, .. } = d;
        let u = timed(s, || {
            a[0].upload_async(s)?;
            b[0].upload_async(s)
        })?;
        let kk = timed(s, || s.scope(|| kernel(&a[0], &b[0], &mut c[0])))?;
        let dd = timed(s, || c[0].download_async(s))?;
        if rep > 0 {
            up.push(u);
            k.push(kk);
            down.push(dd);
        }
    }
    Ok((median(&mut up), median(&mut k), median(&mut down)))
}

fn main() -> ongpu::Result<()> {
    let chunks = arg("--chunks", 20).max(1);
    let len = arg("--chunk-ints", 1 << 20).max(1);
    let reps = arg("--reps", 10).max(1);
    let backend = ongpu::backend()?;
    println!(
        "streams_overlap: {chunks} chunks of {len} ints (a, b up; c = f(a, b); c down), pinned \
         fields, {backend:?} backend, median of {reps} after a warm-up"
    );
    let mut d = Data::new(chunks, len)?;
    let s = [Stream::new(), Stream::new()];
    let mut results = Vec::new();
    for mode in [Mode::OneStream, Mode::DepthFirst, Mode::BreadthFirst] {
        let mut ms = Vec::new();
        for rep in 0..=reps {
            d.refill(rep as u64)?;
            let t = run_mode(mode, &mut d, &s)?;
            d.check(chunks, rep as u64, &format!("{mode:?}, repetition {rep}"))?;
            if rep > 0 {
                ms.push(t);
            }
        }
        results.push((mode, median(&mut ms)));
    }
    let (up, k, down) = timeline(&mut d, &s[0], reps)?;
    d.check(1, 1000 + reps as u64, "timeline")?;

    let one = results[0].1;
    println!();
    println!("| issue order | time | ratio to one stream |");
    println!("|---|---|---|");
    for (mode, t) in &results {
        let name = match mode {
            Mode::OneStream => "one stream",
            Mode::DepthFirst => "two streams, depth-first",
            Mode::BreadthFirst => "two streams, breadth-first",
        };
        println!("| {name} | {t:.3} ms | {:.2}x |", one / t);
    }
    let serial = up + k + down;
    let overlapped = up.max(k).max(down);
    println!();
    println!(
        "timeline per chunk, each step alone: upload a+b {up:.3} ms, kernel {k:.3} ms, \
         download c {down:.3} ms"
    );
    println!(
        "one stream runs them in turn: {serial:.3} ms per chunk ({:.3} ms for {chunks}); with \
         uploads, kernels and downloads all overlapped the longest step bounds a chunk: \
         {overlapped:.3} ms, so two streams can gain at most {:.2}x (less the first and last \
         chunks, which cannot overlap)",
        serial * chunks as f32,
        serial / overlapped
    );
    if backend != ongpu::Backend::Cuda {
        println!(
            "(CPU backend: every call runs to completion in turn; these are host times of the \
             CPU's work, not a measure of overlap)"
        );
        return Ok(());
    }
    let bf = one / results[2].1;
    println!(
        "target: two streams breadth-first >= 1.3x one stream: {bf:.2}x ({})",
        if bf >= 1.3 {
            "met"
        } else if serial / overlapped < 1.3 {
            "NOT met: the timeline above bounds it below 1.3x"
        } else {
            "NOT met"
        }
    );
    Ok(())
}
