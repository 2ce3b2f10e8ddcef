import Foundation

/// An RGB picture read from a binary PPM (`P6`, as `grim -t ppm` writes), with the pixel
/// counts the real-panel tests judge a bar by.
package struct Screenshot: Equatable {
    package let width: Int
    package let height: Int
    /// `width * height` RGB triples, row by row.
    package let pixels: [UInt8]

    /// One pixel's colour.
    package struct Colour: Equatable {
        package var red: Int
        package var green: Int
        package var blue: Int
    }

    /// Parses a `P6` file with a maxval of 255; `nil` for anything else.
    package init?(ppm data: Data) {
        let bytes = [UInt8](data)
        var position = 0
        func token() -> String? {
            // Whitespace and comments between header fields.
            while position < bytes.count {
                if bytes[position] == UInt8(ascii: "#") {
                    while position < bytes.count, bytes[position] != 10 { position += 1 }
                } else if [9, 10, 13, 32].contains(bytes[position]) {
                    position += 1
                } else {
                    break
                }
            }
            let start = position
            while position < bytes.count, ![9, 10, 13, 32].contains(bytes[position]) { position += 1 }
            return start < position ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
        }
        guard token() == "P6", let width = token().flatMap(Int.init), let height = token().flatMap(Int.init),
            token() == "255", width > 0, height > 0
        else { return nil }
        position += 1  // the single whitespace byte before the raster
        guard bytes.count - position >= width * height * 3 else { return nil }
        self.width = width
        self.height = height
        pixels = Array(bytes[position..<(position + width * height * 3)])
    }

    private init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    package func colour(x: Int, y: Int) -> Colour {
        let offset = (y * width + x) * 3
        return Colour(red: Int(pixels[offset]), green: Int(pixels[offset + 1]), blue: Int(pixels[offset + 2]))
    }

    /// How many pixels with `x` in `columns` satisfy `condition`.
    package func count(columns: Range<Int>, where condition: (Colour) -> Bool) -> Int {
        var count = 0
        for y in 0..<height {
            for x in columns.clamped(to: 0..<width) where condition(colour(x: x, y: y)) { count += 1 }
        }
        return count
    }

    /// The pictures one above the other (all as wide as the first), as a `P6` file.
    package static func stacked(_ pictures: [Screenshot]) -> Data {
        let width = pictures.first?.width ?? 0
        var rows: [UInt8] = []
        for picture in pictures where picture.width == width { rows += picture.pixels }
        let height = rows.count / max(1, width * 3)
        return Data("P6\n\(width) \(height)\n255\n".utf8) + Data(rows)
    }
}

extension Screenshot.Colour {
    /// Clearly red, as the recording state's text and icon are (#e01b24), not merely warm.
    package var isRed: Bool { red > 170 && green < 90 && blue < 90 }
    /// Amber, as the paused state's text and icon are (#f5a623).
    package var isAmber: Bool { red > 190 && (110...210).contains(green) && blue < 100 }
    /// Different enough from `background` to be something drawn on it.
    package func isInk(on background: Screenshot.Colour) -> Bool {
        max(abs(red - background.red), abs(green - background.green), abs(blue - background.blue)) > 40
    }
}
