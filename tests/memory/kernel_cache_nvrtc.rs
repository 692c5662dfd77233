//! The persistent kernel cache, with the real NVRTC (no GPU needed): a second compile is read
//! from disk; a corrupt, truncated or foreign file is rebuilt, never trusted; two processes
//! compiling the same kernel at once both succeed; `ONGPU_CACHE=off` turns it off.

#![cfg(feature = "cuda")]

use crate::support::{is_child, require_nvrtc, run_child};
use ongpu::cuda::disk_cache::{DiskCache, Origin};

const ARCH: &str = "sm_90";

fn kernel(tag: u32) -> String {
    format!(
        "extern \"C\" __global__ void ongpu_kernel(float* x) {{ x[threadIdx.x] += {tag}.0f; }}\n"
    )
}

fn compile(cache: &DiskCache, src: &str) -> (Vec<u8>, Origin) {
    let (c, origin) = cache.compile(src, ARCH, "a test kernel", &[]).unwrap();
    (c.image, origin)
}

#[test]
fn a_second_compile_reads_the_same_image_from_disk() {
    if !require_nvrtc() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cache = DiskCache::new(dir.path());
    let src = kernel(1);
    let (first, o1) = compile(&cache, &src);
    assert_eq!(o1, Origin::Compiled);
    assert!(cache.path_for(&src, ARCH, &[]).exists());
    let (second, o2) = compile(&cache, &src);
    assert_eq!(o2, Origin::Disk);
    assert_eq!(first, second);
    // another source, or another architecture, is another entry
    assert_eq!(compile(&cache, &kernel(2)).1, Origin::Compiled);
    assert_ne!(
        cache.path_for(&src, "sm_80", &[]),
        cache.path_for(&src, ARCH, &[])
    );
}

/// Damages the cached file of `src` with `damage`, then checks the next compile ignores it,
/// rebuilds the same image, and leaves a valid file behind.
fn rebuilt_after(damage: impl FnOnce(&std::path::Path)) {
    if !require_nvrtc() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cache = DiskCache::new(dir.path());
    let src = kernel(3);
    let (good, _) = compile(&cache, &src);
    damage(&cache.path_for(&src, ARCH, &[]));
    let (again, origin) = compile(&cache, &src);
    assert_eq!(origin, Origin::Compiled, "a damaged file must not be used");
    assert_eq!(again, good);
    assert_eq!(
        compile(&cache, &src).1,
        Origin::Disk,
        "the rebuilt file is valid"
    );
}

#[test]
fn a_corrupt_file_is_rebuilt() {
    rebuilt_after(|p| {
        let mut bytes = std::fs::read(p).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0x55;
        std::fs::write(p, bytes).unwrap();
    });
}

#[test]
fn a_truncated_file_is_rebuilt() {
    rebuilt_after(|p| {
        let bytes = std::fs::read(p).unwrap();
        std::fs::write(p, &bytes[..bytes.len() / 2]).unwrap();
    });
}

#[test]
fn a_foreign_file_is_rebuilt() {
    rebuilt_after(|p| {
        // a valid entry of another kernel, put under this kernel's name
        let other_dir = tempfile::tempdir().unwrap();
        let other = DiskCache::new(other_dir.path());
        let src = kernel(4);
        compile(&other, &src);
        std::fs::copy(other.path_for(&src, ARCH, &[]), p).unwrap();
    });
}

#[test]
fn garbage_and_empty_files_are_rebuilt() {
    rebuilt_after(|p| std::fs::write(p, b"not a kernel at all").unwrap());
    rebuilt_after(|p| std::fs::write(p, b"").unwrap());
}

#[test]
fn two_processes_compiling_the_same_kernel_both_succeed() {
    if is_child() {
        let dir = std::env::var("ONGPU_TEST_CACHE").unwrap();
        let cache = DiskCache::new(dir);
        match cache.compile(&kernel(5), ARCH, "a test kernel", &[]) {
            Ok((c, _)) if !c.image.is_empty() => println!("CHILD: ok"),
            Ok(_) => println!("CHILD: empty image"),
            Err(e) => println!("CHILD: error {e}"),
        }
        return;
    }
    if !require_nvrtc() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap().to_string();
    let children: Vec<_> = (0..2)
        .map(|_| {
            let d = d.clone();
            std::thread::spawn(move || {
                run_child(
                    module_path!(),
                    "two_processes_compiling_the_same_kernel_both_succeed",
                    &[("ONGPU_TEST_CACHE", &d)],
                )
            })
        })
        .collect();
    for c in children {
        let out = c.join().unwrap();
        assert!(out.contains("CHILD: ok"), "{out}");
    }
    let cache = DiskCache::new(dir.path());
    assert_eq!(compile(&cache, &kernel(5)).1, Origin::Disk);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "temporary files left behind: {leftovers:?}"
    );
}

#[test]
fn the_environment_chooses_the_folder_or_turns_the_cache_off() {
    if is_child() {
        match DiskCache::from_env() {
            None => println!("CHILD: off"),
            Some(c) => println!("CHILD: dir {}", c.dir().display()),
        }
        return;
    }
    let t = "the_environment_chooses_the_folder_or_turns_the_cache_off";
    assert!(run_child(module_path!(), t, &[("ONGPU_CACHE", "off")]).contains("CHILD: off"));
    assert!(
        run_child(module_path!(), t, &[("ONGPU_CACHE_DIR", "/some/where")])
            .contains("CHILD: dir /some/where")
    );
    let default = run_child(module_path!(), t, &[]);
    assert!(
        default.contains("CHILD: dir") && default.contains("ongpu"),
        "{default}"
    );
}

#[test]
fn a_lookup_needs_no_nvrtc_and_follows_the_recorded_version() {
    if !require_nvrtc() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cache = DiskCache::new(dir.path());
    let src = kernel(6);
    assert!(
        cache.lookup(&src, ARCH, &[]).is_none(),
        "an empty folder holds nothing"
    );
    let (image, _) = compile(&cache, &src);
    assert_eq!(
        cache.lookup(&src, ARCH, &[]).map(|c| c.image),
        Some(image.clone())
    );
    // Another NVRTC recorded (an upgrade seen by another process): the old entry no longer
    // matches the key, until a compile records this NVRTC again.
    std::fs::write(dir.path().join("nvrtc-version"), "99.9").unwrap();
    assert!(cache.lookup(&src, ARCH, &[]).is_none());
    assert_eq!(compile(&cache, &src).1, Origin::Disk);
    assert_eq!(cache.lookup(&src, ARCH, &[]).map(|c| c.image), Some(image));
}
