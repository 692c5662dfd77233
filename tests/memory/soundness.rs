//! Soundness: sizes that overflow, allocations the system refuses, panicking bodies. Each is
//! an `Error` from safe code, never heap corruption, an abort or a panic.

use ongpu::prelude::*;
use ongpu::{with_backend, Backend, Error, Residency, Storage};

fn cpu<R>(f: impl FnOnce() -> R) -> R {
    with_backend(Backend::Cpu, f)
}

/// 1024819115206086201 × 18 values × 8 bytes wraps to 16 bytes in 64-bit arithmetic.
const WRAPS: usize = 1024819115206086201;

fn too_large<T>(r: ongpu::Result<T>) -> Error {
    match r {
        Err(e @ Error::FieldTooLarge { .. }) => e,
        Err(e) => panic!("expected FieldTooLarge, got {e:?}"),
        Ok(_) => panic!("expected FieldTooLarge, got Ok"),
    }
}

#[test]
fn a_length_whose_bytes_overflow_is_an_error_at_every_use() {
    cpu(|| {
        let mut x: Field<ColorMatrix<f64>, AoS> = Field::zeros(WRAPS);
        assert_eq!(x.len(), WRAPS);
        let e = too_large(on_gpu!(4, {
            x = ColorMatrix::identity() * 7.0;
        }));
        let text = e.to_string();
        assert!(
            text.contains(&WRAPS.to_string()) && text.contains("ColorMatrix<f64>"),
            "{text}"
        );
        assert!(
            text.contains("AoS") && text.contains("nothing was allocated"),
            "{text}"
        );
        match e {
            Error::FieldTooLarge { len, bytes, .. } => {
                assert_eq!(len, WRAPS);
                assert_eq!(bytes, WRAPS as u128 * 18 * 8);
            }
            _ => unreachable!(),
        }
        // Every later use says the same, and nothing was allocated.
        too_large(x.to_vec());
        too_large(x.get(0));
        too_large(x.set(3, ColorMatrix::identity()));
        too_large(x.sync_host());
        too_large(x.as_host_mut().map(drop));
        too_large(x.as_slice().map(drop));
        too_large(x.set_storage(Storage::Pinned));
        assert!(!x.has_host_copy());
        assert_eq!(x.residency(), Residency::Zeros);
        assert!(matches!(x.get(WRAPS), Err(Error::IndexOutOfRange { .. })));
    });
}

#[test]
fn a_set_past_a_wrapped_allocation_is_an_error() {
    cpu(|| {
        // (2^63 + 1) × 2 values wraps to 2 values (8 bytes): `set(40, ..)` wrote past them.
        let mut c: Field<Complex<f32>, AoS> = Field::zeros((1 << 63) + 1);
        too_large(c.set(40, Complex::new(1.0, 2.0)));
        too_large(c.get(40));
        // The other layouts, and the round-up to whole AoSoA blocks, are checked too.
        let soa: Field<Complex<f32>, SoA> = Field::zeros((1 << 63) + 1);
        too_large(soa.to_vec());
        let blocks: Field<f32> = Field::zeros(usize::MAX); // rounds up past usize::MAX
        too_large(blocks.get(0));
        let blocks4: Field<f32, AoSoA<4>> = Field::zeros(usize::MAX - 1);
        too_large(blocks4.to_vec());
        // A length that just fits the bytes is not refused for its size.
        let fits: Field<u32, AoS> = Field::zeros(isize::MAX as usize / 4);
        assert_eq!(fits.len(), isize::MAX as usize / 4);
    });
}

#[test]
fn every_constructor_checks_the_size_and_builds_nothing() {
    cpu(|| {
        let mut called = false;
        let f: Field<ColorVector<f64>, AoS> = Field::from_fn(usize::MAX / 16, |_| {
            called = true;
            ColorVector::zero()
        });
        assert!(!called, "f must not run for a field that cannot exist");
        too_large(f.to_vec());
        let g: Field<f64> = Field::filled(usize::MAX / 8 + 1, 1.0);
        too_large(g.get(0));
        let h: Field<Complex<f64>, SoA> = Field::zeros(usize::MAX / 16);
        too_large(h.to_vec());
    });
}

#[test]
fn calls_and_reductions_over_a_field_too_large_run_nothing() {
    cpu(|| {
        let big: Field<f64, AoS> = Field::zeros(usize::MAX / 4);
        let mut out: Field<f64, AoS> = Field::filled(8, 1.0);
        too_large(on_gpu!(8, {
            out = big + 1.0;
        }));
        assert_eq!(out.to_vec().unwrap(), vec![1.0; 8]);
        let s: ongpu::Result<f64> = on_gpu!(sum: 8, { big });
        too_large(s);
        too_large(Field::<f64>::zeros(usize::MAX / 4).device_only().map(drop));
    });
}

/// 2^44 f64 = 128 TiB: more than the whole address space of a process, so the allocator
/// refuses it whatever the overcommit policy, without committing any memory.
const REFUSED: usize = 1 << 44;

fn out_of_host_memory<T>(r: ongpu::Result<T>) -> Error {
    match r {
        Err(e @ Error::OutOfHostMemory { .. }) => e,
        Err(e) => panic!("expected OutOfHostMemory, got {e:?}"),
        Ok(_) => panic!("expected OutOfHostMemory, got Ok"),
    }
}

#[test]
fn a_host_copy_the_allocator_refuses_is_an_error() {
    cpu(|| {
        let mut x: Field<f64> = Field::zeros(REFUSED);
        let e = out_of_host_memory(on_gpu!(4, {
            x = 1.0;
        }));
        match &e {
            Error::OutOfHostMemory { requested, .. } => assert_eq!(*requested, REFUSED * 8),
            _ => unreachable!(),
        }
        assert!(e.to_string().contains(&(REFUSED * 8).to_string()), "{e}");
        out_of_host_memory(x.to_vec());
        out_of_host_memory(x.set(1, 2.0));
        assert!(!x.has_host_copy());
    });
}

#[test]
fn a_constructor_whose_allocation_is_refused_builds_nothing() {
    cpu(|| {
        let mut calls = 0;
        let y: Field<f64> = Field::from_fn(REFUSED, |i| {
            calls += 1;
            i as f64
        });
        assert_eq!(calls, 0);
        assert_eq!(y.len(), REFUSED);
        let e = out_of_host_memory(y.get(0));
        assert!(e.to_string().contains("f64"), "{e}");
        out_of_host_memory(y.to_vec());
        let mut z: Field<f64> = Field::zeros(4);
        out_of_host_memory(on_gpu!(4, {
            z = y;
        }));
        assert_eq!(z.to_vec().unwrap(), vec![0.0; 4]);
        let f: Field<ColorMatrix<f32>, SoA> = Field::filled(REFUSED, ColorMatrix::identity());
        out_of_host_memory(f.to_vec());
    });
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn on_the_gpu_fields_too_large_or_refused_are_errors() {
    with_backend(Backend::Cuda, || {
        let mut x: Field<ColorMatrix<f64>, AoS> = Field::zeros(WRAPS);
        too_large(on_gpu!(4, {
            x = ColorMatrix::identity() * 7.0;
        }));
        too_large(x.device_ptr());
        too_large(x.device_ptr_mut());
        too_large(x.sync_device());
        let mut c: Field<Complex<f32>, AoS> = Field::zeros((1 << 63) + 1);
        too_large(c.set(40, Complex::new(1.0, 2.0)));
        too_large(Field::<f64>::zeros(usize::MAX / 4).device_only().map(drop));
        // Storage that fits the address space but not the device: the device's refusal.
        let mut y: Field<f64> = Field::zeros(REFUSED);
        match on_gpu!(4, {
            y = 1.0;
        }) {
            Err(Error::OutOfDeviceMemory { requested, .. }) => assert_eq!(requested, REFUSED * 8),
            other => panic!("expected OutOfDeviceMemory, got {other:?}"),
        }
        let from: Field<f64> = Field::from_fn(REFUSED, |i| i as f64);
        let mut z: Field<f64> = Field::zeros(4);
        out_of_host_memory(on_gpu!(4, {
            z = from;
        }));
        // A page-locked host copy the driver refuses.
        let p: Field<f64> = Field::zeros(REFUSED).pinned().unwrap();
        assert!(matches!(p.to_vec(), Err(Error::HostAllocation { .. })));
    })
}

#[test]
fn download_async_of_a_device_only_field_is_refused_on_the_cpu_too() {
    cpu(|| {
        let s = ongpu::Stream::new();
        let x: Field<f64> = Field::from_fn(8, |i| i as f64).device_only().unwrap();
        let e = x.download_async(&s).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e:?}");
        assert!(e.to_string().contains("device-only"), "{e}");
        let z: Field<f64> = Field::zeros(8).device_only().unwrap();
        assert!(matches!(
            z.download_async(&s),
            Err(Error::InvalidArgument(_))
        ));
        // Other storage: nothing to download on the CPU, and no error.
        let p: Field<f64> = Field::filled(8, 1.0);
        p.download_async(&s).unwrap();
        assert_eq!(x.to_vec().unwrap()[7], 7.0);
    });
}

#[test]
fn a_panicking_body_names_its_site_and_where_it_panicked() {
    cpu(|| {
        let d: Field<i32> = Field::from_vec(vec![1, 2, 0, 4]);
        let mut q: Field<i32> = Field::filled(4, 0);
        let e = on_gpu!({
            q = 100 / d;
        })
        .unwrap_err();
        match &e {
            Error::BodyPanicked { index, message, .. } => {
                assert_eq!(*index, Some(2));
                assert!(message.contains("divide by zero"), "{message}");
                assert!(message.contains("soundness.rs"), "{message}");
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(e.to_string().contains("at site 2"), "{e}");
        // Many chunks on several threads, a site inside a group of lanes (AoSoA and SoA).
        let n = 100_000;
        let d: Field<i32> = Field::from_fn(n, |i| if i == 70_001 { 0 } else { 1 });
        let s: Field<i32, SoA> = Field::from_fn(n, |i| if i == 99_999 { 0 } else { 1 });
        let mut q: Field<i32> = Field::zeros(n);
        match on_gpu!({
            q = 7 / d;
        }) {
            Err(Error::BodyPanicked { index, .. }) => assert_eq!(index, Some(70_001)),
            other => panic!("unexpected {other:?}"),
        }
        match on_gpu!(n, {
            q = 7 / s;
        }) {
            Err(Error::BodyPanicked { index, .. }) => assert_eq!(index, Some(99_999)),
            other => panic!("unexpected {other:?}"),
        }
        // Reductions too.
        let r: ongpu::Result<i64> = on_gpu!(sum: n, { 7 / d });
        match r {
            Err(Error::BodyPanicked { index, .. }) => assert_eq!(index, Some(70_001)),
            other => panic!("unexpected {other:?}"),
        }
        // The sites before the panicking one in its chunk (69_632..70_001, on one thread) ran
        // and were stored, up to its group of 32 lanes (whose stores the panic cut off);
        // other chunks may have been skipped, so only this one is certain.
        assert_eq!(q.get(69_700).unwrap(), 7);
    });
}

/// Runs this test binary again, running only `test` in a child, and returns its stderr.
fn child_stderr(test: &str) -> String {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            &format!("soundness::{test}"),
            "--nocapture",
            "--test-threads=1",
        ])
        .env("ONGPU_TEST_CHILD", "1")
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap();
    assert!(out.status.success(), "child failed: {out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_panic_caught_as_an_error_is_not_printed_but_others_are() {
    if std::env::var_os("ONGPU_TEST_CHILD").is_some() {
        cpu(|| {
            let d: Field<i32> = Field::from_fn(10_000, |i| (i != 5000) as i32);
            let mut q: Field<i32> = Field::zeros(10_000);
            let e = on_gpu!({
                q = 1 / d;
            })
            .unwrap_err();
            eprintln!("CHILD ERROR: {e}");
            let r: ongpu::Result<i64> = on_gpu!(sum: { 1 / d });
            assert!(r.is_err());
        });
        // A panic outside a body still reaches the hook that was there before.
        let _ = std::panic::catch_unwind(|| panic!("a panic outside any body"));
        // And inside a body again, after one outside: still quiet.
        cpu(|| {
            let d: Field<i32> = Field::from_vec(vec![0]);
            let mut q: Field<i32> = Field::zeros(1);
            assert!(on_gpu!({
                q = 1 / d;
            })
            .is_err());
        });
        return;
    }
    let err = child_stderr("a_panic_caught_as_an_error_is_not_printed_but_others_are");
    assert!(
        err.contains("CHILD ERROR:") && err.contains("at site 5000"),
        "{err}"
    );
    assert!(err.contains("a panic outside any body"), "{err}");
    // Three bodies panicked; only the error's text and the outside panic say "panicked at".
    assert_eq!(err.matches("panicked at").count(), 2, "{err}");
}

/// The kernel cache on disk: what is in the folder cannot hang, fool or break a lookup.
#[cfg(feature = "cuda")]
mod kernel_cache {
    use ongpu::cuda::disk_cache::{DiskCache, Origin};
    use std::path::Path;
    use std::time::Duration;

    const ARCH: &str = "sm_90";

    fn kernel(tag: u32) -> String {
        format!(
            "extern \"C\" __global__ void ongpu_kernel(float* x) {{ x[threadIdx.x] *= {tag}.0f; }}\n"
        )
    }

    fn nvrtc() -> bool {
        if ongpu::cuda::nvrtc::available() {
            return true;
        }
        assert!(
            std::env::var_os("ONGPU_SKIP_NVRTC").is_some(),
            "NVRTC not found (source scripts/nvrtc-env.sh, or set ONGPU_SKIP_NVRTC=1)"
        );
        false
    }

    /// `f` on another thread, failing the test if it has not returned after 60 s (a lookup
    /// that blocks).
    fn within_a_minute<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(f()).unwrap());
        rx.recv_timeout(Duration::from_secs(60))
            .expect("the cache lookup blocked")
    }

    /// SHA-256 of `bytes` (by `sha256sum`, to need no hashing crate here).
    fn sha256(bytes: &[u8]) -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("bytes");
        std::fs::write(&file, bytes).unwrap();
        let out = std::process::Command::new("sha256sum")
            .arg(&file)
            .output()
            .unwrap();
        let hex = String::from_utf8(out.stdout).unwrap();
        (0..32)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
            .collect()
    }

    fn mkfifo(path: &Path) {
        let ok = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .unwrap()
            .success();
        assert!(ok, "mkfifo {}", path.display());
    }

    #[test]
    fn a_fifo_in_the_cache_is_not_opened() {
        if !nvrtc() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::new(dir.path());
        let src = kernel(1);
        let (good, _) = cache.compile(&src, ARCH, "a test kernel", &[]).unwrap();
        // The entry is a FIFO: a miss, rebuilt and replaced by a file.
        let entry = cache.path_for(&src, ARCH, &[]);
        std::fs::remove_file(&entry).unwrap();
        mkfifo(&entry);
        let c = cache.clone();
        let s = src.clone();
        assert!(within_a_minute(move || c.lookup(&s, ARCH, &[])).is_none());
        let (c, s) = (cache.clone(), src.clone());
        let (again, origin) =
            within_a_minute(move || c.compile(&s, ARCH, "a test kernel", &[]).unwrap());
        assert_eq!(origin, Origin::Compiled);
        assert_eq!(again.image, good.image);
        assert!(std::fs::metadata(&entry).unwrap().is_file());
        // The recorded NVRTC version is a FIFO: a miss, not a hang.
        let record = dir.path().join("nvrtc-version");
        std::fs::remove_file(&record).unwrap();
        mkfifo(&record);
        let (c, s) = (cache.clone(), src.clone());
        assert!(within_a_minute(move || c.lookup(&s, ARCH, &[])).is_none());
    }

    #[test]
    fn an_entry_with_a_matching_checksum_but_no_image_is_rebuilt() {
        if !nvrtc() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::new(dir.path());
        let src = kernel(2);
        let (good, _) = cache.compile(&src, ARCH, "a test kernel", &[]).unwrap();
        let entry = cache.path_for(&src, ARCH, &[]);
        // A well-formed entry for this key (magic and key kept, kind cubin), whose length and
        // checksum match a garbage image.
        let valid = std::fs::read(&entry).unwrap();
        let garbage = b"not an ELF file, whatever the checksum says".to_vec();
        let mut crafted = valid[..40].to_vec();
        crafted.push(0);
        crafted.extend_from_slice(&(garbage.len() as u64).to_le_bytes());
        crafted.extend_from_slice(&sha256(&garbage));
        crafted.extend_from_slice(&garbage);
        std::fs::write(&entry, &crafted).unwrap();
        assert!(cache.lookup(&src, ARCH, &[]).is_none());
        let (again, origin) = cache.compile(&src, ARCH, "a test kernel", &[]).unwrap();
        assert_eq!(origin, Origin::Compiled);
        assert_eq!(again.image, good.image);
        assert_eq!(
            cache.compile(&src, ARCH, "a test kernel", &[]).unwrap().1,
            Origin::Disk
        );
    }

    /// Replaces every entry in `dir` by a well-formed one (magic, key, lengths and checksum
    /// right) whose image starts like an ELF file but is garbage.
    fn craft_garbage_entries(dir: &Path) -> usize {
        let mut n = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == "ongpu-kernel") {
                let valid = std::fs::read(&path).unwrap();
                let mut garbage = b"\x7fELF".to_vec();
                garbage.extend((0..200u32).map(|i| (i * 37 % 251) as u8));
                let mut crafted = valid[..41].to_vec();
                crafted.extend_from_slice(&(garbage.len() as u64).to_le_bytes());
                crafted.extend_from_slice(&sha256(&garbage));
                crafted.extend_from_slice(&garbage);
                std::fs::write(&path, &crafted).unwrap();
                n += 1;
            }
        }
        n
    }

    #[test]
    #[ignore = "needs a CUDA device"]
    fn an_image_the_driver_refuses_is_rebuilt() {
        if std::env::var_os("ONGPU_TEST_CHILD").is_some() {
            ongpu::with_backend(ongpu::Backend::Cuda, || {
                let mut x: ongpu::Field<f32> = ongpu::Field::zeros(1000);
                ongpu::on_gpu!({
                    x = 2.5;
                })
                .unwrap();
                assert_eq!(x.get(999).unwrap(), 2.5);
            });
            println!("CHILD: ok");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let run = || {
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "soundness::kernel_cache::an_image_the_driver_refuses_is_rebuilt",
                    "--nocapture",
                    "--include-ignored",
                ])
                .env("ONGPU_TEST_CHILD", "1")
                .env("ONGPU_CACHE_DIR", dir.path())
                .output()
                .unwrap();
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(text.contains("CHILD: ok"), "{text}");
        };
        run();
        assert!(craft_garbage_entries(dir.path()) > 0);
        run(); // the driver refuses the cached image: rebuilt, stored, and the call runs
        run();
    }

    #[test]
    fn a_cache_folder_that_is_a_file_compiles_and_says_so() {
        if std::env::var_os("ONGPU_TEST_CHILD").is_some() {
            match DiskCache::from_env() {
                None => println!("CHILD: off"),
                Some(c) => println!("CHILD: dir {}", c.dir().display()),
            }
            return;
        }
        if !nvrtc() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("not-a-folder");
        std::fs::write(&file, b"a file").unwrap();
        // Chosen by the environment: the cache is off, with a warning that names the path.
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "soundness::kernel_cache::a_cache_folder_that_is_a_file_compiles_and_says_so",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("ONGPU_TEST_CHILD", "1")
            .env("ONGPU_CACHE_DIR", &file)
            .output()
            .unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(stdout.contains("CHILD: off"), "{stdout}");
        assert!(
            stderr.contains(&file.display().to_string()) && stderr.contains("not a folder"),
            "{stderr}"
        );
        // Given explicitly: kernels still compile, nothing is stored, and the file is left.
        let cache = DiskCache::new(&file);
        let src = kernel(3);
        assert!(cache.lookup(&src, ARCH, &[]).is_none());
        for _ in 0..2 {
            let (c, origin) = cache.compile(&src, ARCH, "a test kernel", &[]).unwrap();
            assert_eq!(origin, Origin::Compiled);
            assert!(!c.image.is_empty());
        }
        assert_eq!(std::fs::read(&file).unwrap(), b"a file");
    }
}

#[test]
fn abs_of_the_minimum_wraps_in_bodies_and_device_functions() {
    #[ongpu::device]
    fn magnitude(v: i32) -> i32 {
        v.abs()
    }
    cpu(|| {
        let a: Field<i32> = Field::filled(40, i32::MIN);
        let mut x: Field<i32> = Field::zeros(40);
        let mut y: Field<i32> = Field::zeros(40);
        on_gpu!({
            x = a.abs();
            y = magnitude(a);
        })
        .unwrap();
        assert_eq!(x.to_vec().unwrap(), vec![i32::MIN; 40]);
        assert_eq!(y.to_vec().unwrap(), vec![i32::MIN; 40]);
    });
}
