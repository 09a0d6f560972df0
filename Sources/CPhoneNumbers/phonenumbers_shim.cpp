// Thin extern "C" bridge over Google's libphonenumber: parse, check, format as E.164.
#include "phonenumbers_shim.h"

#include <phonenumbers/phonenumberutil.h>
#include <phonenumbers/phonenumber.pb.h>
#include <cstring>
#include <set>
#include <string>

using i18n::phonenumbers::PhoneMetadata;
using i18n::phonenumbers::PhoneNumber;
using i18n::phonenumbers::PhoneNumberUtil;

// libphonenumber's GetNumberType finds the number's region again before classifying it, and for a
// calling code shared by several regions (+1, +7, +44...) finding it is a round of pattern
// matching per region tried. pa_phone_parse has just found the region, so it classifies the number
// the way GetNumberType does (the region's metadata, then GetNumberTypeHelper), with the two
// members GetNumberType uses: one private, one protected. An explicit instantiation may name them
// (C++ does not check access there); the friend functions hand them out. A test holds the result
// to GetNumberType's own (pa_phone_number_type).
namespace {
using MetadataFinder = const PhoneMetadata *(PhoneNumberUtil::*)(int, const std::string &) const;
using TypeFinder = PhoneNumberUtil::PhoneNumberType (PhoneNumberUtil::*)(const std::string &, const PhoneMetadata &)
    const;
MetadataFinder metadata_for_region_or_calling_code();
TypeFinder number_type_for_metadata();
template <MetadataFinder Metadata, TypeFinder Type> struct Members {
    friend MetadataFinder metadata_for_region_or_calling_code() { return Metadata; }
    friend TypeFinder number_type_for_metadata() { return Type; }
};
template struct Members<&PhoneNumberUtil::GetMetadataForRegionOrCallingCode, &PhoneNumberUtil::GetNumberTypeHelper>;

PhoneNumberUtil::PhoneNumberType number_type(const PhoneNumberUtil *util, const PhoneNumber &number,
                                             const std::string &region) {
    const PhoneMetadata *metadata = (util->*metadata_for_region_or_calling_code())(number.country_code(), region);
    if (metadata == nullptr) return PhoneNumberUtil::UNKNOWN;
    std::string national;
    util->GetNationalSignificantNumber(number, &national);
    return (util->*number_type_for_metadata())(national, *metadata);
}
}  // namespace

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
    PhoneNumberUtil::PhoneNumberType type = number_type(util, number, region);
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

extern "C" int pa_phone_number_type(const char *text) {
    const PhoneNumberUtil *util = PhoneNumberUtil::GetInstance();
    PhoneNumber number;
    if (text == nullptr || util->Parse(text, "ZZ", &number) != PhoneNumberUtil::NO_PARSING_ERROR) return -1;
    return static_cast<int>(util->GetNumberType(number));
}

extern "C" int pa_phone_region_supported(const char *region) {
    if (region == nullptr) return 0;
    const std::string code(region);
    if (code == "001") return 1;
    std::set<std::string> regions;
    PhoneNumberUtil::GetInstance()->GetSupportedRegions(&regions);
    return regions.count(code) ? 1 : 0;
}
