//! The tuning file: one line per decision, `kernel device class fixed threads waves`, where
//! `kernel` is the hash of the kernel's source, `device` the device's name and architecture
//! (spaces as `_`), `fixed` the threads per block the call named (0: none), and the last two
//! the shape kept. Later lines replace earlier ones of the same key; lines that do not parse
//! are skipped (a file of another version of ongpu costs a tuning, not an error).

#![cfg_attr(not(feature = "cuda"), allow(dead_code))]

use super::LaunchChoice;
use std::collections::HashMap;

/// What a decision is for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    /// The hash of the kernel's source.
    pub kernel: u64,
    /// The device (name and architecture, no spaces).
    pub device: String,
    /// The size class.
    pub class: u32,
    /// The threads per block the call named, 0 for none.
    pub fixed: u32,
}

/// The line of a decision.
pub(crate) fn line(key: &Key, choice: LaunchChoice) -> String {
    format!(
        "{:016x} {} {} {} {} {}\n",
        key.kernel, key.device, key.class, key.fixed, choice.threads_per_block, choice.waves
    )
}

/// The decisions of a file's text.
pub(crate) fn parse(text: &str) -> HashMap<Key, LaunchChoice> {
    let mut out = HashMap::new();
    for l in text.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        let [kernel, device, class, fixed, tpb, waves] = f[..] else {
            continue;
        };
        let parsed = (|| {
            let key = Key {
                kernel: u64::from_str_radix(kernel, 16).ok()?,
                device: device.to_string(),
                class: class.parse().ok()?,
                fixed: fixed.parse().ok()?,
            };
            let choice = LaunchChoice {
                threads_per_block: tpb
                    .parse()
                    .ok()
                    .filter(|&t: &u32| (32..=1024).contains(&t))?,
                waves: waves.parse().ok().filter(|&w: &u32| w <= 64)?,
            };
            Some((key, choice))
        })();
        if let Some((k, c)) = parsed {
            out.insert(k, c);
        }
    }
    out
}

/// The device's name in a key.
pub(crate) fn device_key(name: &str, arch: &str, sms: u32) -> String {
    format!(
        "{}-{arch}-{sms}sm",
        name.trim().replace(char::is_whitespace, "_")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_read_back_and_later_lines_win() {
        let key = Key {
            kernel: 0xfeed_0123_4567_89ab,
            device: device_key("NVIDIA H200", "sm_90", 132),
            class: 24,
            fixed: 0,
        };
        let a = LaunchChoice {
            threads_per_block: 512,
            waves: 2,
        };
        let b = LaunchChoice {
            threads_per_block: 128,
            waves: 0,
        };
        let text = format!("{}garbage line\n1 2 3\n{}", line(&key, a), line(&key, b));
        let read = parse(&text);
        assert_eq!(read.len(), 1);
        assert_eq!(read[&key], b);
        assert_eq!(key.device, "NVIDIA_H200-sm_90-132sm");
        assert!(
            parse("00000000000000ff d 3 0 5000 1\n").is_empty(),
            "5000 threads"
        );
    }
}
