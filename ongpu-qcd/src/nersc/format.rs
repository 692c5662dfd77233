//! How the links are stored: precision, rows per link and byte order, and their names in the
//! header (`DATATYPE`, `FLOATING_POINT`).

/// The precision of the stored reals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Precision {
    /// IEEE 754 binary64 (`IEEE64…`).
    #[default]
    Double,
    /// IEEE 754 binary32 (`IEEE32…`): half the size, links rounded to about 7 digits.
    Single,
}

impl Precision {
    /// Bytes per stored real.
    pub fn bytes(self) -> usize {
        match self {
            Precision::Double => 8,
            Precision::Single => 4,
        }
    }

    /// The bits of the `FLOATING_POINT` name (`IEEE64`, `IEEE32`).
    fn ieee(self) -> &'static str {
        match self {
            Precision::Double => "IEEE64",
            Precision::Single => "IEEE32",
        }
    }
}

/// How many rows of each link matrix the file holds: its `DATATYPE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Rows {
    /// All three rows: `DATATYPE = 4D_SU3_GAUGE_3x3`. Any 3x3 matrix round-trips.
    #[default]
    Three,
    /// The first two rows: `DATATYPE = 4D_SU3_GAUGE`. A third of the size; on reading the
    /// third row is rebuilt as `conj(row0 × row1)`, which is the stored matrix only if it is
    /// in SU(3).
    Two,
}

impl Rows {
    /// The number of rows stored per link.
    pub fn count(self) -> usize {
        match self {
            Rows::Three => 3,
            Rows::Two => 2,
        }
    }

    /// The `DATATYPE` value.
    pub fn datatype(self) -> &'static str {
        match self {
            Rows::Three => "4D_SU3_GAUGE_3x3",
            Rows::Two => "4D_SU3_GAUGE",
        }
    }

    /// The rows a `DATATYPE` value names, `None` for any other gauge group or type.
    pub fn from_datatype(value: &str) -> Option<Rows> {
        [Rows::Three, Rows::Two]
            .into_iter()
            .find(|r| r.datatype() == value)
    }
}

/// The byte order of the stored reals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ByteOrder {
    /// Most significant byte first (`…BIG`): the order MILC and QDP++ read.
    #[default]
    Big,
    /// Least significant byte first (`…LITTLE`).
    Little,
}

/// The storage of a gauge file: precision, rows and byte order.
///
/// The default is what most codes write and every code reads: three rows (`4D_SU3_GAUGE_3x3`)
/// of big-endian doubles (`IEEE64BIG`). Change one field with struct update syntax:
///
/// ```
/// # mod ongpu { pub use ::ongpu_runtime::*; pub mod qcd { pub use ::ongpu_qcd::*; } }
/// use ongpu::qcd::nersc::{Format, Precision, Rows};
/// let small = Format { precision: Precision::Single, rows: Rows::Two, ..Format::default() };
/// assert_eq!(small.floating_point(), "IEEE32BIG");
/// assert_eq!(small.site_bytes(), 4 * 2 * 3 * 2 * 4);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Format {
    /// The precision of the stored reals.
    pub precision: Precision,
    /// How many rows of each link are stored.
    pub rows: Rows,
    /// The byte order of the stored reals.
    pub byte_order: ByteOrder,
}

impl Format {
    /// The `FLOATING_POINT` value: `IEEE64BIG`, `IEEE32BIG`, `IEEE64LITTLE` or `IEEE32LITTLE`.
    pub fn floating_point(&self) -> String {
        let order = match self.byte_order {
            ByteOrder::Big => "BIG",
            ByteOrder::Little => "LITTLE",
        };
        format!("{}{order}", self.precision.ieee())
    }

    /// Reals stored per link (complex entries of the stored rows, two reals each).
    pub fn reals_per_link(&self) -> usize {
        self.rows.count() * 3 * 2
    }

    /// Bytes stored per site: four links.
    pub fn site_bytes(&self) -> usize {
        4 * self.reals_per_link() * self.precision.bytes()
    }
}

/// What a `FLOATING_POINT` value says: the precision, and the byte order where the name
/// gives one. The bare `IEEE32` and `IEEE64` do not: Grid reads them as little-endian and
/// QDP++ reads `IEEE32` as big-endian, so the reader settles their order by the checksum.
pub(super) fn parse_floating_point(value: &str) -> Option<(Precision, Option<ByteOrder>)> {
    let (precision, order) = match value {
        "IEEE64BIG" => (Precision::Double, Some(ByteOrder::Big)),
        "IEEE32BIG" => (Precision::Single, Some(ByteOrder::Big)),
        "IEEE64LITTLE" => (Precision::Double, Some(ByteOrder::Little)),
        "IEEE32LITTLE" => (Precision::Single, Some(ByteOrder::Little)),
        "IEEE64" => (Precision::Double, None),
        "IEEE32" => (Precision::Single, None),
        _ => return None,
    };
    Some((precision, order))
}

/// The `FLOATING_POINT` values the reader accepts, for error messages.
pub(super) const FLOATING_POINT_NAMES: &str =
    "IEEE64BIG, IEEE32BIG, IEEE64LITTLE, IEEE32LITTLE, IEEE64 or IEEE32";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for precision in [Precision::Double, Precision::Single] {
            for byte_order in [ByteOrder::Big, ByteOrder::Little] {
                let f = Format {
                    precision,
                    rows: Rows::Three,
                    byte_order,
                };
                let parsed = parse_floating_point(&f.floating_point());
                assert_eq!(parsed, Some((precision, Some(byte_order))));
            }
        }
        for rows in [Rows::Three, Rows::Two] {
            assert_eq!(Rows::from_datatype(rows.datatype()), Some(rows));
        }
        assert_eq!(Rows::from_datatype("4D_SU4_GAUGE"), None);
        assert_eq!(
            parse_floating_point("IEEE64"),
            Some((Precision::Double, None))
        );
        assert_eq!(parse_floating_point("IEEE128BIG"), None);
    }
}
