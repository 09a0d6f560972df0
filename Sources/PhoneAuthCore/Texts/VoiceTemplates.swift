/// What a voice call says, for each language of `SMSTemplates`. Each text holds the code exactly
/// once, at `{code}`: `VoiceText` says the sentence twice, the second time after `again`.
package enum VoiceTemplates {
    static let templates: [String: String] = [
        "en": "Your verification code is {code}.",
        "fr": "Votre code de vérification est {code}.",
        "de": "Ihr Bestätigungscode lautet {code}.",
        "es": "Tu código de verificación es {code}.",
        "pt": "O seu código de verificação é {code}.",
        "it": "Il tuo codice di verifica è {code}.",
        "nl": "Je verificatiecode is {code}.",
        "ru": "Ваш код подтверждения: {code}.",
        "zh-TW": "您的驗證碼是 {code}。",
        "zh-CN": "您的验证码是 {code}。",
        "id": "Kode verifikasi Anda adalah {code}.",
        "ja": "認証コードは {code} です。",
        "ko": "인증 코드는 {code}입니다.",
    ]

    /// The same texts naming the app, used when `sms.appName` is set.
    static let withAppName: [String: String] = [
        "en": "Your {appName} verification code is {code}.",
        "fr": "Votre code de vérification {appName} est {code}.",
        "de": "Ihr Bestätigungscode für {appName} lautet {code}.",
        "es": "Tu código de verificación de {appName} es {code}.",
        "pt": "O seu código de verificação para {appName} é {code}.",
        "it": "Il tuo codice di verifica per {appName} è {code}.",
        "nl": "Je verificatiecode voor {appName} is {code}.",
        "ru": "Ваш код подтверждения для {appName}: {code}.",
        "zh-TW": "您的 {appName} 驗證碼是 {code}。",
        "zh-CN": "您的 {appName} 验证码是 {code}。",
        "id": "Kode verifikasi {appName} Anda adalah {code}.",
        "ja": "{appName} の認証コードは {code} です。",
        "ko": "{appName} 인증 코드는 {code}입니다.",
    ]

    /// What comes before the sentence the second time ("Again: Your verification code is …"),
    /// so a listener who missed the start knows the code follows once more.
    static let again: [String: String] = [
        "en": "Again: ",
        "fr": "Je répète : ",
        "de": "Noch einmal: ",
        "es": "Repito: ",
        "pt": "Repito: ",
        "it": "Ripeto: ",
        "nl": "Nog een keer: ",
        "ru": "Повторяю: ",
        "zh-TW": "再說一遍：",
        "zh-CN": "再说一遍：",
        "id": "Sekali lagi: ",
        "ja": "繰り返します。",
        "ko": "다시 한 번 말씀드립니다. ",
    ]
}
