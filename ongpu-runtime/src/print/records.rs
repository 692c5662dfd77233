//! The GPU's print records, as the prelude's `ongpu::print_record` writes them into the
//! module's `ongpu_print_buffer` (words of 32 bits): a record is its length in words, the
//! print's number, the site or thread (two words, low first), then each argument as a type
//! tag and its words (`PrintValue::words`). A record that did not fit leaves a 0 where it
//! would have started, and is counted in the buffer's `dropped`.

// Read by the CUDA backend only (tests read it in every build).
#![cfg_attr(not(feature = "cuda"), allow(dead_code))]

use super::{PrintFormat, PrintValue, Printed};

/// The words of a buffer's record area (the prelude's `ONGPU_PRINT_WORDS`): 16 MiB, some
/// hundred thousand lines per call.
pub const BUFFER_WORDS: usize = 1 << 22;

/// Words before the arguments.
const HEADER: usize = 4;

/// The lines of the records in `words` (the area's first `used` words), formatted by
/// `format`, with their keys; an error names the first malformed record.
pub fn lines(words: &[u32], format: PrintFormat) -> Result<Vec<(u64, Printed)>, String> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < words.len() && words[at] != 0 {
        let len = words[at] as usize;
        let record = words
            .get(at..at + len)
            .filter(|_| len >= HEADER)
            .ok_or_else(|| format!("a print record of {len} words at word {at}"))?;
        let key = u64::from(record[2]) | (u64::from(record[3]) << 32);
        let mut args = Vec::new();
        let mut k = HEADER;
        while k < len {
            let tag = record[k];
            let value = PrintValue::decode(tag, &record[k + 1..])
                .ok_or_else(|| format!("an argument of tag {tag} at word {}", at + k))?;
            args.push(value);
            k += 1 + PrintValue::words(tag).expect("decoded");
        }
        out.push((key, format(record[1], &args)));
        at += len;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format(id: u32, args: &[PrintValue]) -> Printed {
        Printed {
            to_stderr: false,
            text: match id {
                0 => format!("site {} x = {:.2}\n", args[0], args[1]),
                _ => format!("flag {}\n", args[0]),
            },
        }
    }

    #[test]
    fn records_become_lines_with_their_keys() {
        let x = 2.5f32;
        let words = [
            9,
            0,
            7,
            0,
            8,
            7,
            0,
            9,
            x.to_bits(), // site 7: (u64 7, f32 2.5)
            6,
            1,
            3,
            1,
            0,
            1, // key 2^32 + 3: (bool true)
            0,
            99,
            99, // a record that did not fit, then garbage
        ];
        let lines = lines(&words[..], format).unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].0, 7);
        assert_eq!(lines[0].1.text, "site 7 x = 2.50\n");
        assert_eq!(lines[1].0, (1 << 32) + 3);
        assert_eq!(lines[1].1.text, "flag true\n");
        assert!(super::lines(&[9, 0, 0, 0], format).is_err());
        assert!(super::lines(&[6, 0, 0, 0, 77, 0], format).is_err());
    }
}
