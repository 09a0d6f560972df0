/// The captcha page's parts: its style, its visible content and its script. They stay in Swift
/// strings, built into phoneauthd: there is no file beside it to find and read at run time.
extension CaptchaPage {
    /// The page's style element. A rule too long for a source line is continued with a backslash.
    static let style = """
        <style>
        body { font-family: system-ui, sans-serif; margin: 0; padding: 2rem 1rem; text-align: center; \
        color: #202124; }
        main { max-width: 26rem; margin: 0 auto; display: flex; flex-direction: column; align-items: center; \
        gap: 1.25rem; }
        h1 { font-size: 1.4rem; margin: 0; }
        button { font: inherit; min-height: 44px; padding: 0.5rem 1.5rem; border-radius: 0.5rem; \
        border: 1px solid #5f6368; background: #fff; }
        button:focus-visible { outline: 3px solid #1a73e8; outline-offset: 2px; }
        </style>
        """

    /// What the page shows: its title, the lead (empty for a score key, which shows nothing to
    /// complete), the widget's place, and the cancel button.
    static func main(_ text: Text, lead: String) -> String {
        """
        <main>
        <h1>\(text.title)</h1>
        \(lead)<div id="captcha"></div>
        <noscript><p>\(text.noScript)</p></noscript>
        <button type="button" id="cancel">\(text.cancel)</button>
        </main>
        """
    }

    /// The page's script (run by its `nonce`): it loads the provider's script, shows or runs the
    /// widget with `config` (JSON, see scriptConfig), and sends the app its token or the error.
    static func script(config json: String, nonce: String) -> String {
        """
        <script nonce="\(nonce)">
        (function () {
          "use strict";
          var config = \(json);
          var done = false;
          function finish(key, value) {
            if (done) { return; }
            done = true;
            var back = location.origin + location.pathname + "?eventId=" +
              encodeURIComponent(config.eventId) + "&" + key + "=" + encodeURIComponent(value);
            location.replace(config.callbackScheme + "://phoneauth/link?deep_link_id=" +
              encodeURIComponent(back));
          }
          function fail(reason) { return function () { finish("error", reason); }; }
          window.phoneauthCaptchaLoaded = function () {
            var api = config.api.split(".").reduce(function (o, k) { return o && o[k]; }, window);
            if (!api) { return fail("unavailable")(); }
            if (config.widget === "score") {
              api.ready(function () {
                api.execute(config.siteKey, { action: config.action }).then(function (token) {
                  finish("captchaToken", token);
                }, fail("failed"));
              });
              return;
            }
            var options = config.options;
            options.sitekey = config.siteKey;
            options.callback = function (token) { finish("captchaToken", token); };
            Object.keys(config.failures).forEach(function (name) { options[name] = fail(config.failures[name]); });
            api.render("captcha", options);
          };
          document.getElementById("cancel").addEventListener("click", fail("cancelled"));
          var script = document.createElement("script");
          script.src = config.script;
          script.async = true;
          script.onerror = fail("unavailable");
          document.head.appendChild(script);
        })();
        </script>
        """
    }
}
