// Hand confirmation of the xtensor findings (docs/certifications/xtensor.md).
//   c++ -std=c++17 xtensor_hand.cpp -o xtensor_hand && ./xtensor_hand
#include <iostream>
#include <xtensor/xarray.hpp>
#include <xtensor/xbroadcast.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xio.hpp>
#include <xtensor/xstrides.hpp>

template <class S>
static void show(const char *what, const S &s)
{
    std::cout << what << ": shape {";
    for (std::size_t k = 0; k < s.size(); k++)
        std::cout << (k ? "," : "") << s[k];
    std::cout << "}\n";
}

int main()
{
    using shape = std::vector<std::size_t>;
    xt::xarray<int> x = {1, 2};
    auto b = xt::broadcast(x, shape{3, 1});
    show("xt::broadcast(x of {2}, {3,1})", b.shape());
    std::cout << xt::xarray<int>(b) << "\n";
    show("xt::broadcast(zeros {0}, {1})", xt::broadcast(xt::zeros<int>(shape{0}), shape{1}).shape());
    std::cout << "xt::broadcastable({0}, {1}) = " << xt::broadcastable(shape{0}, shape{1})
              << ", xt::broadcastable({2}, {3,1}) = " << xt::broadcastable(shape{2}, shape{3, 1})
              << "\n";
    try {
        auto e = xt::broadcast(xt::zeros<int>(shape{0}), shape{});
        show("xt::broadcast(zeros {0}, {})", e.shape());
    } catch (const std::exception &err) {
        std::cout << "xt::broadcast(zeros {0}, {}) throws: " << err.what() << "\n";
    }
    try {
        auto e = xt::broadcast(xt::zeros<int>(shape{1, 7}), shape{1});
        show("xt::broadcast(zeros {1,7}, {1})", e.shape());
    } catch (const std::exception &err) {
        std::cout << "xt::broadcast(zeros {1,7}, {1}) throws: " << err.what() << "\n";
    }
    return 0;
}
