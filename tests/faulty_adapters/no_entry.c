/* A shared library that is not an adapter: no bc_adapter_entry_v1. */
__attribute__((visibility("default"))) int not_an_adapter(void);

int not_an_adapter(void)
{
    return 0;
}
