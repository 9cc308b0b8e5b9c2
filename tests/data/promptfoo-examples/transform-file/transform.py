def custom_func_name(output, context):
    # context['vars'], context['prompt']
    # ...
    return output.upper()
