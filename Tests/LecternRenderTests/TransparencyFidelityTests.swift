import Foundation
import LecternModel
import LecternRender
import LecternPipeline
import LecternTestSupport
import XCTest

/// Transparency groups (isolated or not, knockout), blend modes and soft masks: the
/// frame pipeline against pdftocairo (see `FidelityTestCase`).
final class TransparencyFidelityTests: FidelityTestCase {
    // MARK: groups and blend modes

    static let blendModes = [
        "Normal", "Multiply", "Screen", "Overlay", "Darken", "Lighten", "ColorDodge",
        "ColorBurn", "HardLight", "SoftLight", "Difference", "Exclusion",
        "Hue", "Saturation", "Color", "Luminosity",
    ]

    func testBlendModesInGroupsMatchPdftocairo() throws {
        for mode in Self.blendModes {
            try check("blend-\(mode)", write(blendPage(mode), "blend-\(mode)"))
        }
    }

    /// Pages that declare their own transparency group (as presentation and layout
    /// programs write them), isolated or not.
    func testPageTransparencyGroupMatchesPdftocairo() throws {
        for (name, group) in [
            ("page-group", Self.transparencyGroup), ("page-group-nonisolated", Self.group(isolated: false, knockout: false)),
            ("page-group-knockout", Self.group(isolated: true, knockout: true)),
        ] {
            try check(name, write(blendPage("Difference", pageGroup: group), name))
        }
    }

    /// Knockout groups, isolated or not, whose members are semi-transparent and overlap
    /// (each knocks out the ones before it), beside a plain group with the same members.
    func testKnockoutGroupsMatchPdftocairo() throws {
        var pdf = RawPDF()
        let gs = "/ExtGState << /H << /ca 0.6 >> /HB << /ca 0.7 /BM /Multiply >> >>"
        let members = """
            /H gs 0.9 0.1 0.1 rg 30 150 70 80 re f
            0.1 0.8 0.1 rg 60 120 70 80 re f
            /HB gs 0.1 0.2 0.9 rg 45 180 70 80 re f
            """
        let bbox: [Double] = [0, 0, 400, 300]
        let plain = pdf.addForm(bbox: bbox, resources: gs, extra: Self.group(isolated: false, knockout: false), members)
        let knockout = pdf.addForm(bbox: bbox, resources: gs, extra: Self.group(isolated: false, knockout: true), members)
        let isolatedKnockout = pdf.addForm(bbox: bbox, resources: gs, extra: Self.group(isolated: true, knockout: true), members)
        let content = pdf.addStream(
            "",
            """
            \(Self.stripes)
            /P Do
            q 1 0 0 1 120 0 cm /K Do Q
            q 1 0 0 1 240 0 cm /KI Do Q
            q 1 0 0 1 0 -110 cm /K Do Q
            """)
        _ = pdf.addPage(
            """
            /MediaBox [0 0 400 300] /Contents \(content) 0 R
            /Resources << \(gs) /XObject << /P \(plain) 0 R /K \(knockout) 0 R /KI \(isolatedKnockout) 0 R >> >>
            """)
        try check("knockout", write(pdf, "knockout"))
    }

    // MARK: soft masks

    /// A luminosity mask: a grey ramp (an axial shading) clipped to part of the mask
    /// group, the rest taking the backdrop colour /BC (black, then white).
    func testLuminositySoftMaskMatchesPdftocairo() throws {
        var pdf = RawPDF()
        let ramp =
            "/Shading << /R << /ShadingType 2 /ColorSpace /DeviceGray /Coords [20 0 380 0] /Function << /FunctionType 2 /Domain [0 1] /C0 [0] /C1 [1] /N 1 >> /Extend [true true] >> >>"
        let mask = pdf.addForm(
            bbox: [0, 0, 400, 300], resources: ramp, extra: Self.transparencyGroup,
            "q 20 20 360 130 re W n /R sh Q 0.7 g 160 200 80 80 re f")
        let content = pdf.addStream(
            "",
            """
            \(Self.stripes)
            q /M0 gs 0.1 0.3 0.8 rg 20 20 360 250 re f 0.9 0.4 0.1 rg 60 60 100 200 re f Q
            q /M1 gs 0.2 0.6 0.3 rg 300 30 80 240 re f Q
            """)
        _ = pdf.addPage(
            """
            /MediaBox [0 0 400 300] /Contents \(content) 0 R
            /Resources << /ExtGState <<
              /M0 << /SMask << /Type /Mask /S /Luminosity /G \(mask) 0 R >> >>
              /M1 << /SMask << /Type /Mask /S /Luminosity /G \(mask) 0 R /BC [1 1 1] >> >>
            >> >>
            """)
        try check("softmask-luminosity", write(pdf, "softmask-luminosity"))
    }

    /// An alpha mask: squares of three opacities in the mask group.
    func testAlphaSoftMaskMatchesPdftocairo() throws {
        var pdf = RawPDF()
        let mask = pdf.addForm(
            bbox: [0, 0, 400, 300], resources: "/ExtGState << /A3 << /ca 0.3 >> /A7 << /ca 0.7 >> >>",
            extra: Self.transparencyGroup,
            """
            q /A3 gs 0 g 20 40 120 220 re f Q
            q /A7 gs 0 g 140 40 120 220 re f Q
            0 g 260 40 120 220 re f
            """)
        let content = pdf.addStream(
            "",
            """
            \(Self.stripes)
            q /M gs 0.1 0.3 0.8 rg 10 20 380 120 re f 0.9 0.4 0.1 rg 60 100 280 150 re f Q
            """)
        _ = pdf.addPage(
            """
            /MediaBox [0 0 400 300] /Contents \(content) 0 R
            /Resources << /ExtGState << /M << /SMask << /Type /Mask /S /Alpha /G \(mask) 0 R >> >> >> >>
            """)
        try check("softmask-alpha", write(pdf, "softmask-alpha"))
    }

    /// The second case: a knockout group painted under a soft mask, and a knockout
    /// group whose member has its own soft mask. Paper must stay white where nothing is
    /// painted.
    func testKnockoutGroupWithSoftMaskMatchesPdftocairo() throws {
        var pdf = RawPDF()
        let mask = pdf.addForm(
            bbox: [0, 0, 400, 300], extra: Self.transparencyGroup,
            "0.8 g 20 20 180 260 re f 0.3 g 200 20 180 260 re f")
        let masks = "/ExtGState << /M << /SMask << /Type /Mask /S /Luminosity /G \(mask) 0 R >> >> /H << /ca 0.5 >> >>"
        let members = """
            /H gs 0.9 0.1 0.1 rg 40 60 200 120 re f
            0.1 0.2 0.9 rg 160 120 200 120 re f
            """
        let knockout = pdf.addForm(bbox: [0, 0, 400, 300], resources: masks, extra: Self.group(isolated: false, knockout: true), members)
        let maskedMember = pdf.addForm(
            bbox: [0, 0, 400, 300], resources: masks, extra: Self.group(isolated: true, knockout: true),
            """
            0.1 0.7 0.3 rg 40 20 150 90 re f
            q /M gs 0.9 0.6 0.1 rg 100 40 250 60 re f Q
            """)
        let content = pdf.addStream(
            "",
            """
            q /M gs /K Do Q
            /KM Do
            """)
        _ = pdf.addPage(
            """
            /MediaBox [0 0 400 300] /Contents \(content) 0 R
            /Resources << \(masks) /XObject << /K \(knockout) 0 R /KM \(maskedMember) 0 R >> >>
            """)
        try check("knockout-softmask", write(pdf, "knockout-softmask"))
    }
}
