import Foundation
import LecternModel
import LecternRender

extension WebSession {
    /// The `/wall` view's image as the page holds it (a canvas copy, PNG), or nil while it
    /// has none. One definition for every test that checks the wall view's pixels.
    func wallFrame() throws -> Frame? {
        let script = """
            const i = document.getElementById('wall-img');
            if (!i || i.hidden || !i.complete || !i.naturalWidth) return '';
            const c = document.createElement('canvas');
            c.width = i.naturalWidth; c.height = i.naturalHeight;
            c.getContext('2d').drawImage(i, 0, 0);
            return c.toDataURL('image/png').split(',')[1];
            """
        guard let b64 = try execute(script) as? String, !b64.isEmpty, let data = Data(base64Encoded: b64), !data.isEmpty else { return nil }
        return try PNG.decode(data)
    }
}
