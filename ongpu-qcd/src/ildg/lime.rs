//! LIME record framing, the container format of ILDG and SciDAC files.
//!
//! A LIME file is a sequence of records. Each record is a 144-byte header,
//! the data, and zero bytes padding the data to a multiple of 8 bytes. The
//! header holds, big-endian: the magic number `0x456789ab` (bytes 0..4), the
//! LIME version 1 (bytes 4..6), the flags (byte 6: `0x80` = message begin
//! "MB", `0x40` = message end "ME"; the rest is reserved), the data length
//! without padding (bytes 8..16) and the record type, an ASCII string padded
//! with NUL bytes (bytes 16..144). Records are grouped into messages: the
//! first record of a message has MB set, the last has ME set.
//!
//! Checked against USQCD c-lime: `doc/lime_1p2.tex` (format appendix),
//! `include/lime_binary_header.h` (field layout, MB/ME masks),
//! `include/lime_defs.h` (magic number, version), `lib/lime_utils.c`
//! (padding), `lib/lime_writer.c` (header writing, MB/ME sequencing: a record
//! begins a message exactly when the previous one ended a message) and
//! `lib/lime_reader.c`. c-lime writes a 128-character type with no NUL
//! inside the 128-byte field, so the reader accepts that too.

use std::io::{Read, Seek, SeekFrom, Write};

/// Magic number that starts every LIME record header.
const LIME_MAGIC: u32 = 0x4567_89ab;
/// The only LIME version that exists.
const LIME_VERSION: u16 = 1;
/// Length in bytes of a record header.
const HEADER_LEN: u64 = 144;
/// Offset of the record type field inside the header.
const TYPE_FIELD_START: usize = 16;
/// Length in bytes of the record type field.
const TYPE_FIELD_LEN: usize = 128;
/// Message-begin bit of the big-endian 16-bit flags word.
const MESSAGE_BEGIN_FLAG: u16 = 0x8000;
/// Message-end bit of the big-endian 16-bit flags word.
const MESSAGE_END_FLAG: u16 = 0x4000;

/// The header of one LIME record, as found by [`scan`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RecordHeader {
    /// Record type, e.g. `ildg-binary-data`.
    pub(crate) record_type: String,
    /// Whether the record begins a message (MB flag).
    pub(crate) message_begin: bool,
    /// Whether the record ends a message (ME flag).
    pub(crate) message_end: bool,
    /// File offset of the first data byte.
    pub(crate) data_offset: u64,
    /// Number of data bytes, without padding.
    pub(crate) data_len: u64,
}

/// Number of zero bytes that pad `data_len` data bytes to a multiple of 8.
fn padding_len(data_len: u64) -> u64 {
    (8 - data_len % 8) % 8
}

/// Names a record in error messages: 1-based number and header offset.
fn describe_record(index: usize, header_offset: u64) -> String {
    format!(
        "LIME record #{} (header at byte {header_offset})",
        index + 1
    )
}

/// Reads every record header of a LIME file of `file_len` bytes.
///
/// Seeks over the data instead of reading it. Refuses a bad magic number or
/// version, a type that is not ASCII, a record whose data or padding runs
/// past `file_len`, and bytes after the last record.
pub(crate) fn scan<R: Read + Seek>(
    input: &mut R,
    file_len: u64,
) -> Result<Vec<RecordHeader>, String> {
    if file_len == 0 {
        return Err("the file is empty: a LIME file holds at least one record".to_string());
    }
    let mut records = Vec::new();
    let mut offset = 0;
    while offset < file_len {
        let index = records.len();
        let header = read_header_bytes(input, index, offset, file_len)?;
        let record = decode_header(&header, index, offset)?;
        offset = padded_record_end(&record, index, offset, file_len)?;
        records.push(record);
    }
    Ok(records)
}

/// Reads the 144 header bytes of record `index` at `offset`.
fn read_header_bytes<R: Read + Seek>(
    input: &mut R,
    index: usize,
    offset: u64,
    file_len: u64,
) -> Result<[u8; HEADER_LEN as usize], String> {
    let remaining = file_len - offset;
    if remaining < HEADER_LEN {
        return Err(format!(
            "{remaining} bytes at byte {offset} (after {index} complete LIME records) are too \
             short for a LIME record header ({HEADER_LEN} bytes): the file is truncated or has \
             trailing garbage"
        ));
    }
    let mut header = [0u8; HEADER_LEN as usize];
    input
        .seek(SeekFrom::Start(offset))
        .and_then(|_| input.read_exact(&mut header))
        .map_err(|e| format!("cannot read {}: {e}", describe_record(index, offset)))?;
    Ok(header)
}

/// Big-endian u16 at `at` in the header.
fn be_u16(header: &[u8; HEADER_LEN as usize], at: usize) -> u16 {
    u16::from_be_bytes([header[at], header[at + 1]])
}

/// Big-endian u32 at `at` in the header.
fn be_u32(header: &[u8; HEADER_LEN as usize], at: usize) -> u32 {
    u32::from_be_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
}

/// Big-endian u64 at `at` in the header.
fn be_u64(header: &[u8; HEADER_LEN as usize], at: usize) -> u64 {
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&header[at..at + 8]);
    u64::from_be_bytes(bytes)
}

/// Checks and decodes the header of record `index` found at `offset`.
fn decode_header(
    header: &[u8; HEADER_LEN as usize],
    index: usize,
    offset: u64,
) -> Result<RecordHeader, String> {
    let magic = be_u32(header, 0);
    if magic != LIME_MAGIC {
        return Err(format!(
            "{}: bad magic number {magic:#010x} (expected {LIME_MAGIC:#010x}); this is not a \
             LIME file, or the previous record's length is wrong",
            describe_record(index, offset)
        ));
    }
    let version = be_u16(header, 4);
    if version != LIME_VERSION {
        return Err(format!(
            "{}: unsupported LIME version {version} (only version {LIME_VERSION} exists)",
            describe_record(index, offset)
        ));
    }
    let flags = be_u16(header, 6);
    let type_field = &header[TYPE_FIELD_START..TYPE_FIELD_START + TYPE_FIELD_LEN];
    let record_type = decode_record_type(type_field)
        .map_err(|e| format!("{}: {e}", describe_record(index, offset)))?;
    Ok(RecordHeader {
        record_type,
        message_begin: flags & MESSAGE_BEGIN_FLAG != 0,
        message_end: flags & MESSAGE_END_FLAG != 0,
        data_offset: offset + HEADER_LEN,
        data_len: be_u64(header, 8),
    })
}

/// Decodes the NUL-padded record type field; refuses non-printable ASCII.
fn decode_record_type(type_field: &[u8]) -> Result<String, String> {
    let end = type_field
        .iter()
        .position(|&byte| byte == 0)
        .unwrap_or(type_field.len());
    let text = &type_field[..end];
    if let Some(position) = text.iter().position(|byte| !is_type_char(*byte)) {
        return Err(format!(
            "the record type has byte {:#04x} at position {position}, which is not printable \
             ASCII",
            text[position]
        ));
    }
    Ok(text.iter().map(|&byte| char::from(byte)).collect())
}

/// Whether `byte` may appear in a record type (printable ASCII).
fn is_type_char(byte: u8) -> bool {
    (0x20..=0x7e).contains(&byte)
}

/// File offset just past the padded data of `record`, checked against `file_len`.
fn padded_record_end(
    record: &RecordHeader,
    index: usize,
    header_offset: u64,
    file_len: u64,
) -> Result<u64, String> {
    let available = file_len - record.data_offset.min(file_len);
    let data_end = match record.data_offset.checked_add(record.data_len) {
        Some(end) if end <= file_len => end,
        _ => {
            return Err(format!(
                "{} of type '{}' declares {} data bytes but only {available} bytes follow its \
                 header: the file is truncated or the header is corrupt",
                describe_record(index, header_offset),
                record.record_type,
                record.data_len
            ))
        }
    };
    let padded_end = data_end + padding_len(record.data_len);
    if padded_end > file_len {
        return Err(format!(
            "{} of type '{}': its data ends at byte {data_end} but the file ends at byte \
             {file_len}, before the {} padding bytes: the file is truncated",
            describe_record(index, header_offset),
            record.record_type,
            padding_len(record.data_len)
        ));
    }
    Ok(padded_end)
}

/// Reads the whole data of a small record (XML), refusing more than `limit` bytes.
pub(crate) fn read_data<R: Read + Seek>(
    input: &mut R,
    record: &RecordHeader,
    limit: u64,
) -> Result<Vec<u8>, String> {
    let too_long = || {
        format!(
            "LIME record '{}' at byte {} holds {} bytes, more than the {limit} bytes accepted \
             for a metadata record",
            record.record_type, record.data_offset, record.data_len
        )
    };
    if record.data_len > limit {
        return Err(too_long());
    }
    let len = usize::try_from(record.data_len).map_err(|_| too_long())?;
    let mut data = vec![0u8; len];
    input
        .seek(SeekFrom::Start(record.data_offset))
        .and_then(|_| input.read_exact(&mut data))
        .map_err(|e| {
            format!(
                "cannot read the {len} data bytes of LIME record '{}' at byte {}: {e}",
                record.record_type, record.data_offset
            )
        })?;
    Ok(data)
}

/// The first record of type `record_type`, if any.
pub(crate) fn find<'a>(records: &'a [RecordHeader], record_type: &str) -> Option<&'a RecordHeader> {
    records
        .iter()
        .find(|record| record.record_type == record_type)
}

/// Encodes a record header.
fn encode_header(
    record_type: &str,
    data_len: u64,
    message_begin: bool,
    message_end: bool,
) -> [u8; HEADER_LEN as usize] {
    let mut flags = 0u16;
    if message_begin {
        flags |= MESSAGE_BEGIN_FLAG;
    }
    if message_end {
        flags |= MESSAGE_END_FLAG;
    }
    let mut header = [0u8; HEADER_LEN as usize];
    header[0..4].copy_from_slice(&LIME_MAGIC.to_be_bytes());
    header[4..6].copy_from_slice(&LIME_VERSION.to_be_bytes());
    header[6..8].copy_from_slice(&flags.to_be_bytes());
    header[8..16].copy_from_slice(&data_len.to_be_bytes());
    header[TYPE_FIELD_START..TYPE_FIELD_START + record_type.len()]
        .copy_from_slice(record_type.as_bytes());
    header
}

/// Checks that a record type fits the header with a terminating NUL.
fn check_record_type(record_type: &str) -> Result<(), String> {
    if record_type.is_empty() || record_type.len() >= TYPE_FIELD_LEN {
        return Err(format!(
            "LIME record type '{record_type}' must have 1 to {} characters",
            TYPE_FIELD_LEN - 1
        ));
    }
    if !record_type.bytes().all(is_type_char) {
        return Err(format!(
            "LIME record type '{record_type}' must be printable ASCII"
        ));
    }
    Ok(())
}

/// Writes LIME records one after another and keeps the MB/ME flags consistent:
/// the first record and every record after a message end must begin a
/// message, and no other record may.
pub(crate) struct RecordWriter<W: Write> {
    /// Where the records go.
    out: W,
    /// Whether the next record must begin a message.
    next_begins_message: bool,
    /// Type of a record begun with [`RecordWriter::begin_record`] and not finished yet.
    unfinished_record: Option<String>,
}

impl<W: Write> RecordWriter<W> {
    /// A writer at the start of a new LIME file.
    pub(crate) fn new(out: W) -> Self {
        Self {
            out,
            next_begins_message: true,
            unfinished_record: None,
        }
    }

    /// Writes a whole record: header, `data` and padding.
    pub(crate) fn write_record(
        &mut self,
        record_type: &str,
        data: &[u8],
        message_begin: bool,
        message_end: bool,
    ) -> Result<(), String> {
        let data_len = data.len() as u64;
        let mut record = self.begin_record(record_type, data_len, message_begin, message_end)?;
        record.write(data)?;
        record.finish()
    }

    /// Writes the header of a record of `data_len` bytes; the caller then
    /// writes the data in chunks through the returned [`RecordData`] and
    /// calls [`RecordData::finish`], which checks the count and pads.
    pub(crate) fn begin_record(
        &mut self,
        record_type: &str,
        data_len: u64,
        message_begin: bool,
        message_end: bool,
    ) -> Result<RecordData<'_, W>, String> {
        self.check_no_unfinished_record()?;
        check_record_type(record_type)?;
        self.check_message_begin(record_type, message_begin)?;
        let header = encode_header(record_type, data_len, message_begin, message_end);
        self.out
            .write_all(&header)
            .map_err(|e| format!("cannot write the header of LIME record '{record_type}': {e}"))?;
        self.next_begins_message = message_end;
        self.unfinished_record = Some(record_type.to_string());
        Ok(RecordData {
            writer: self,
            record_type: record_type.to_string(),
            declared_len: data_len,
            written_len: 0,
        })
    }

    /// Flushes and returns the output; refuses if a record or message is open.
    pub(crate) fn finish(mut self) -> Result<W, String> {
        self.check_no_unfinished_record()?;
        if !self.next_begins_message {
            return Err(
                "the last LIME record did not end its message (message_end = false)".to_string(),
            );
        }
        self.out
            .flush()
            .map_err(|e| format!("cannot flush the LIME file: {e}"))?;
        Ok(self.out)
    }

    /// Refuses to go on while a record begun earlier is not finished.
    fn check_no_unfinished_record(&self) -> Result<(), String> {
        match &self.unfinished_record {
            Some(record_type) => Err(format!(
                "the data of LIME record '{record_type}' was not finished (RecordData::finish \
                 was not called or failed)"
            )),
            None => Ok(()),
        }
    }

    /// Checks the MB flag against the ME flag of the previous record.
    fn check_message_begin(&self, record_type: &str, message_begin: bool) -> Result<(), String> {
        match (self.next_begins_message, message_begin) {
            (true, false) => Err(format!(
                "LIME record '{record_type}' must begin a message: it is the first record or \
                 follows a record that ended a message"
            )),
            (false, true) => Err(format!(
                "LIME record '{record_type}' cannot begin a message: the previous record did not \
                 end its message"
            )),
            _ => Ok(()),
        }
    }
}

/// The data of a record being written; created by [`RecordWriter::begin_record`].
pub(crate) struct RecordData<'a, W: Write> {
    /// The writer the record belongs to.
    writer: &'a mut RecordWriter<W>,
    /// Type of the record, for error messages.
    record_type: String,
    /// Data length written in the header.
    declared_len: u64,
    /// Data bytes written so far.
    written_len: u64,
}

impl<W: Write> RecordData<'_, W> {
    /// Writes the next chunk of data; refuses to exceed the declared length.
    pub(crate) fn write(&mut self, chunk: &[u8]) -> Result<(), String> {
        let new_len = self.written_len.saturating_add(chunk.len() as u64);
        if new_len > self.declared_len {
            return Err(format!(
                "LIME record '{}' was declared with {} data bytes but {new_len} bytes were \
                 written",
                self.record_type, self.declared_len
            ));
        }
        self.writer.out.write_all(chunk).map_err(|e| {
            format!(
                "cannot write data of LIME record '{}': {e}",
                self.record_type
            )
        })?;
        self.written_len = new_len;
        Ok(())
    }

    /// Checks that all declared bytes were written, then writes the padding.
    pub(crate) fn finish(self) -> Result<(), String> {
        if self.written_len != self.declared_len {
            return Err(format!(
                "LIME record '{}' was declared with {} data bytes but only {} bytes were written",
                self.record_type, self.declared_len, self.written_len
            ));
        }
        let padding = [0u8; 8];
        let padding_len = padding_len(self.declared_len) as usize;
        self.writer
            .out
            .write_all(&padding[..padding_len])
            .map_err(|e| {
                format!(
                    "cannot write padding of LIME record '{}': {e}",
                    self.record_type
                )
            })?;
        self.writer.unfinished_record = None;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    /// The records of the test file: (type, data, MB, ME).
    const RECORDS: [(&str, &[u8], bool, bool); 4] = [
        ("scidac-private-file-xml", b"<a>12</a>", true, false),
        ("scidac-file-xml", b"", false, true),
        ("ildg-format", b"0123456789abcdef", true, false),
        ("scidac-checksum", b"checksum-xml!", false, true),
    ];

    /// Writes [`RECORDS`]; the third record's data goes in two chunks.
    fn write_test_file() -> Vec<u8> {
        let mut writer = RecordWriter::new(Vec::new());
        for (index, (record_type, data, begin, end)) in RECORDS.iter().enumerate() {
            if index == 2 {
                let mut record = writer
                    .begin_record(record_type, data.len() as u64, *begin, *end)
                    .expect("begin");
                record.write(&data[..5]).expect("first chunk");
                record.write(&data[5..]).expect("second chunk");
                record.finish().expect("finish");
            } else {
                writer
                    .write_record(record_type, data, *begin, *end)
                    .expect("write");
            }
        }
        writer.finish().expect("finish file")
    }

    /// Scans `bytes` as a whole file.
    fn scan_bytes(bytes: &[u8]) -> Result<Vec<RecordHeader>, String> {
        scan(&mut Cursor::new(bytes), bytes.len() as u64)
    }

    /// Asserts that scanning `bytes` fails with a message containing `needle`.
    fn assert_scan_error(bytes: &[u8], needle: &str) {
        match scan_bytes(bytes) {
            Ok(records) => panic!("expected an error containing '{needle}', got {records:?}"),
            Err(message) => assert!(message.contains(needle), "message: {message}"),
        }
    }

    #[test]
    fn round_trip_keeps_types_flags_offsets_and_lengths() {
        let bytes = write_test_file();
        assert_eq!(bytes.len() % 8, 0);
        let records = scan_bytes(&bytes).expect("scan");
        assert_eq!(records.len(), RECORDS.len());
        let mut expected_offset = HEADER_LEN;
        for (record, (record_type, data, begin, end)) in records.iter().zip(RECORDS) {
            assert_eq!(record.record_type, record_type);
            assert_eq!(record.message_begin, begin);
            assert_eq!(record.message_end, end);
            assert_eq!(record.data_offset, expected_offset);
            assert_eq!(record.data_len, data.len() as u64);
            assert_eq!(record.data_offset % 8, 0);
            let read = read_data(&mut Cursor::new(&bytes), record, 100).expect("read");
            assert_eq!(read, data);
            let padding_start = (record.data_offset + record.data_len) as usize;
            let padding_end = padding_start + padding_len(record.data_len) as usize;
            assert!(bytes[padding_start..padding_end].iter().all(|&b| b == 0));
            expected_offset = padding_end as u64 + HEADER_LEN;
        }
    }

    #[test]
    fn header_layout_matches_c_lime() {
        let bytes = write_test_file();
        assert_eq!(&bytes[0..4], &[0x45, 0x67, 0x89, 0xab]);
        assert_eq!(&bytes[4..6], &[0, 1]);
        assert_eq!(&bytes[6..8], &[0x80, 0]);
        assert_eq!(&bytes[8..16], &9u64.to_be_bytes());
        assert_eq!(&bytes[16..39], b"scidac-private-file-xml");
        assert!(bytes[39..144].iter().all(|&b| b == 0));
    }

    #[test]
    fn find_returns_first_record_of_a_type() {
        let records = scan_bytes(&write_test_file()).expect("scan");
        let found = find(&records, "ildg-format").expect("found");
        assert_eq!(found.data_len, 16);
        assert!(find(&records, "ildg-binary-data").is_none());
    }

    #[test]
    fn read_data_refuses_records_over_the_limit() {
        let bytes = write_test_file();
        let records = scan_bytes(&bytes).expect("scan");
        let error = read_data(&mut Cursor::new(&bytes), &records[2], 15).expect_err("limit");
        assert!(
            error.contains("ildg-format") && error.contains("15"),
            "{error}"
        );
    }

    #[test]
    fn empty_file_is_refused() {
        assert_scan_error(&[], "empty");
    }

    #[test]
    fn truncated_data_is_refused() {
        let bytes = write_test_file();
        let cut = bytes.len() - 10;
        assert_scan_error(&bytes[..cut], "'scidac-checksum' declares 13 data bytes");
    }

    #[test]
    fn missing_padding_is_refused() {
        let bytes = write_test_file();
        assert_scan_error(&bytes[..bytes.len() - 1], "padding");
    }

    #[test]
    fn truncated_header_is_refused() {
        let bytes = write_test_file();
        assert_scan_error(&bytes[..100], "too short for a LIME record header");
    }

    #[test]
    fn bad_magic_is_refused() {
        let mut bytes = write_test_file();
        bytes[0] = 0x46;
        assert_scan_error(&bytes, "bad magic number 0x466789ab");
    }

    #[test]
    fn bad_version_is_refused() {
        let mut bytes = write_test_file();
        bytes[5] = 2;
        assert_scan_error(&bytes, "unsupported LIME version 2");
    }

    #[test]
    fn short_trailing_bytes_are_refused() {
        let mut bytes = write_test_file();
        bytes.extend_from_slice(&[0; 5]);
        assert_scan_error(&bytes, "5 bytes at byte");
    }

    #[test]
    fn long_trailing_garbage_is_refused() {
        let mut bytes = write_test_file();
        bytes.extend_from_slice(&[0xff; 200]);
        assert_scan_error(&bytes, "LIME record #5");
    }

    #[test]
    fn length_past_the_end_is_refused() {
        let mut bytes = write_test_file();
        bytes[8..16].copy_from_slice(&u64::MAX.to_be_bytes());
        assert_scan_error(&bytes, "declares 18446744073709551615 data bytes");
    }

    #[test]
    fn non_ascii_type_is_refused() {
        let mut bytes = write_test_file();
        bytes[17] = 0xc3;
        assert_scan_error(&bytes, "not printable ASCII");
    }

    #[test]
    fn type_filling_all_128_bytes_is_accepted() {
        let mut bytes = encode_header("x", 0, true, true).to_vec();
        bytes[16..144].fill(b'a');
        let records = scan_bytes(&bytes).expect("scan");
        assert_eq!(records[0].record_type, "a".repeat(128));
    }

    #[test]
    fn finish_with_too_few_bytes_is_refused() {
        let mut writer = RecordWriter::new(Vec::new());
        let mut record = writer
            .begin_record("ildg-binary-data", 10, true, true)
            .expect("begin");
        record.write(&[1, 2, 3, 4]).expect("chunk");
        let error = record.finish().expect_err("short");
        assert!(
            error.contains("declared with 10") && error.contains("only 4"),
            "{error}"
        );
        assert!(writer.finish().is_err());
    }

    #[test]
    fn writing_past_the_declared_length_is_refused() {
        let mut writer = RecordWriter::new(Vec::new());
        let mut record = writer
            .begin_record("ildg-binary-data", 3, true, true)
            .expect("begin");
        let error = record.write(&[0; 4]).expect_err("long");
        assert!(error.contains("declared with 3"), "{error}");
    }

    #[test]
    fn unfinished_record_blocks_the_next_record() {
        let mut writer = RecordWriter::new(Vec::new());
        let record = writer.begin_record("a", 3, true, false).expect("begin");
        drop(record);
        let error = writer
            .write_record("b", b"", false, true)
            .expect_err("open");
        assert!(error.contains("'a' was not finished"), "{error}");
    }

    #[test]
    fn inconsistent_message_flags_are_refused() {
        let mut writer = RecordWriter::new(Vec::new());
        assert!(writer.write_record("a", b"", false, false).is_err());
        writer.write_record("a", b"", true, false).expect("first");
        assert!(writer.write_record("b", b"", true, false).is_err());
        assert!(RecordWriter::new(Vec::new()).finish().is_ok());
        let error = writer.finish().expect_err("open message");
        assert!(error.contains("did not end its message"), "{error}");
    }

    #[test]
    fn bad_record_types_are_refused_by_the_writer() {
        let mut writer = RecordWriter::new(Vec::new());
        assert!(writer.write_record("", b"", true, true).is_err());
        assert!(writer
            .write_record(&"t".repeat(128), b"", true, true)
            .is_err());
        assert!(writer.write_record("ildg\u{e9}", b"", true, true).is_err());
        writer
            .write_record(&"t".repeat(127), b"", true, true)
            .expect("127 characters fit");
    }
}
