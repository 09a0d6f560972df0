/// The frame of every console page, and the headers that keep it safe: no script at all (the
/// Content-Security-Policy allows none), styles and images from this server only, no framing,
/// nothing cached, no referrer to other sites.
enum ConsoleLayout {
    static let sections = [
        ("users", "Users"), ("tenants", "Tenants"), ("delivery", "Delivery"), ("fraud", "Fraud"),
        ("operations", "Operations"),
    ]

    static let headers: [(String, String)] = [
        (
            "Content-Security-Policy",
            "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; "
                + "base-uri 'none'"
        ),
        // same-origin, not no-referrer: with no-referrer a browser sends its own forms' POSTs with
        // `Origin: null`, and the origin check (Console.crossSite) could not tell them from a forgery.
        ("Cache-Control", "no-store"), ("Referrer-Policy", "same-origin"), ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"), ("Cross-Origin-Opener-Policy", "same-origin"),
    ]

    /// A whole page: `body` (HTML) under the title, with the navigation and, signed in, the
    /// sign-out button; `notice` (text) says what the last action did.
    static func page(
        title: String, body: String, session: ConsoleSessions.Session?, section: String? = nil, notice: String? = nil
    ) -> String {
        var nav = ""
        if let session {
            let links = sections.map { id, name in
                "<li><a href=\"/console/\(id)\"\(id == section ? " aria-current=\"page\"" : "")>\(name)</a></li>"
            }.joined()
            nav =
                "<nav aria-label=\"Sections\"><ul>\(links)</ul>"
                + HTML.form("/console/logout", csrf: session.csrf, button: "Sign out") + "</nav>"
        }
        let said = notice.map { "<p role=\"status\" class=\"notice\">\(HTML.escape($0))</p>" } ?? ""
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>\(HTML.escape(title)) · PhoneAuth console</title>
            <link rel="stylesheet" href="/console/console.css"></head>
            <body><a class="skip" href="#main">Skip to the page</a>
            <header><p class="brand"><a href="/console">PhoneAuth console</a></p>\(nav)</header>
            <main id="main"><h1>\(HTML.escape(title))</h1>\(said)
            \(body)
            </main></body></html>
            """
    }

    static let stylesheet = """
        body { font: 15px/1.45 system-ui, sans-serif; margin: 0; color: #1b1f24; background: #f6f7f9; }
        header { display: flex; gap: 2rem; align-items: center; padding: .5rem 1.5rem; background: #1f2a44; }
        header a, header button { color: #fff; }
        .brand { font-weight: 600; margin: 0; }
        nav { display: flex; gap: 1rem; align-items: center; }
        nav ul { display: flex; gap: 1rem; list-style: none; margin: 0; padding: 0; }
        nav a[aria-current] { text-decoration: underline 2px; }
        nav button { background: none; border: 1px solid #fff; border-radius: 4px; cursor: pointer; }
        main { padding: 1rem 1.5rem; max-width: 72rem; }
        table { border-collapse: collapse; width: 100%; margin: .5rem 0 1.5rem; background: #fff; }
        caption { text-align: left; font-weight: 600; padding: .25rem 0; }
        th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid #dde1e6; vertical-align: top; }
        form { display: inline-flex; gap: .5rem; align-items: center; flex-wrap: wrap; margin: .25rem 0; }
        label { font-weight: 500; }
        input, select, textarea, button { font: inherit; padding: .25rem .5rem; }
        button { cursor: pointer; }
        button.danger { background: #a4161a; color: #fff; border: 1px solid #a4161a; }
        :focus-visible { outline: 3px solid #ffbf47; outline-offset: 2px; }
        .skip { position: absolute; left: -10000px; }
        .skip:focus { left: 1rem; top: .5rem; background: #fff; padding: .25rem .5rem; z-index: 1; }
        .notice { background: #e7f5e9; border-left: 4px solid #2e7d32; padding: .5rem .75rem; }
        .error { background: #fdecea; border-left: 4px solid #a4161a; padding: .5rem .75rem; }
        .chart { background: #fff; border: 1px solid #dde1e6; margin: .5rem 0 1.5rem; }
        dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
        dt { font-weight: 600; }
        dd { margin: 0; }
        """
}
