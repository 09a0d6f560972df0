// Thin extern "C" bridge over Google's libphonenumber: parse, check, format as E.164.
#include "phonenumbers_shim.h"

#include <phonenumbers/phonenumberutil.h>
#include <phonenumbers/phonenumber.pb.h>
#include <cstring>
#include <set>
#include <string>

using i18n::phonenumbers::PhoneNumber;
using i18n::phonenumbers::PhoneNumberUtil;

static void copy_out(char *dst, size_t cap, const std::string &src) {
    size_t n = src.size() < cap - 1 ? src.size() : cap - 1;
    std::memcpy(dst, src.data(), n);
    dst[n] = '\0';
}

static int reason_for_parse_error(PhoneNumberUtil::ErrorType error) {
    switch (error) {
    case PhoneNumberUtil::INVALID_COUNTRY_CODE_ERROR: return PA_PHONE_INVALID_COUNTRY_CODE;
    case PhoneNumberUtil::TOO_SHORT_AFTER_IDD:
    case PhoneNumberUtil::TOO_SHORT_NSN: return PA_PHONE_TOO_SHORT;
    case PhoneNumberUtil::TOO_LONG_NSN: return PA_PHONE_TOO_LONG;
    default: return PA_PHONE_NOT_A_NUMBER;
    }
}

static int reason_for_possibility(PhoneNumberUtil::ValidationResult result) {
    switch (result) {
    case PhoneNumberUtil::INVALID_COUNTRY_CODE: return PA_PHONE_INVALID_COUNTRY_CODE;
    case PhoneNumberUtil::TOO_SHORT: return PA_PHONE_TOO_SHORT;
    case PhoneNumberUtil::TOO_LONG: return PA_PHONE_TOO_LONG;
    case PhoneNumberUtil::INVALID_LENGTH: return PA_PHONE_INVALID_LENGTH;
    default: return PA_PHONE_NOT_VALID;
    }
}

extern "C" void pa_phone_parse(const char *text, const char *default_region, pa_phone_result *out) {
    std::memset(out, 0, sizeof *out);
    copy_out(out->region, sizeof out->region, "ZZ");
    if (text == nullptr) {
        out->reason = PA_PHONE_NOT_A_NUMBER;
        return;
    }
    const PhoneNumberUtil *util = PhoneNumberUtil::GetInstance();
    PhoneNumber number;
    PhoneNumberUtil::ErrorType error =
        util->Parse(text, default_region ? default_region : "ZZ", &number);
    if (error != PhoneNumberUtil::NO_PARSING_ERROR) {
        out->reason = reason_for_parse_error(error);
        return;
    }
    // A number is valid exactly when libphonenumber gives it a type (IsValidNumber is that test
    // for the number's own region): one round of pattern matching answers both questions.
    std::string e164, region;
    util->GetRegionCodeForNumber(number, &region);
    PhoneNumberUtil::PhoneNumberType type = util->GetNumberType(number);
    if (type == PhoneNumberUtil::UNKNOWN) {
        out->reason = reason_for_possibility(util->IsPossibleNumberWithReason(number));
        return;
    }
    out->type = static_cast<int>(type);
    util->Format(number, PhoneNumberUtil::E164, &e164);
    copy_out(out->e164, sizeof out->e164, e164);
    copy_out(out->region, sizeof out->region, region.empty() ? "ZZ" : region);
    out->reason = PA_PHONE_OK;
}

extern "C" int pa_phone_region_supported(const char *region) {
    if (region == nullptr) return 0;
    const std::string code(region);
    if (code == "001") return 1;
    std::set<std::string> regions;
    PhoneNumberUtil::GetInstance()->GetSupportedRegions(&regions);
    return regions.count(code) ? 1 : 0;
}
